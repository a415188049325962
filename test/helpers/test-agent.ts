import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttpServer } from './close-server.js';

/** One request an agent received, as the test sees it. */
export interface AgentRequest {
  body: {
    input: unknown;
    case: { name: string; expected: Record<string, unknown> };
    run_id: string;
    agent_version: string;
    trace_id: string;
    trial: number;
    approval?: { approved: boolean; comment: string | null };
  };
  traceparent: string | undefined;
  headers: http.IncomingHttpHeaders;
}

export type AgentBehaviour = (
  req: AgentRequest,
) => Promise<{ status?: number; json?: unknown; raw?: string }> | { status?: number; json?: unknown; raw?: string };

export interface TestAgent {
  url: string;
  requests: AgentRequest[];
  /** Requests for one case (by case name). */
  callsFor(caseName: string, runId?: string): AgentRequest[];
  setBehaviour(fn: AgentBehaviour): void;
  close(): Promise<void>;
}

/** An HTTP agent served by the test: it answers each case as `behaviour` says and records every call. */
export async function startTestAgent(behaviour: AgentBehaviour): Promise<TestAgent> {
  const requests: AgentRequest[] = [];
  let current = behaviour;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record: AgentRequest = {
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as AgentRequest['body'],
        traceparent: req.headers.traceparent as string | undefined,
        headers: req.headers,
      };
      requests.push(record);
      Promise.resolve(current(record)).then(
        (answer) => {
          res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
          res.end(answer.raw ?? JSON.stringify(answer.json ?? {}));
        },
        (err: unknown) => {
          res.writeHead(500);
          res.end(String(err));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/agent`,
    requests,
    callsFor: (caseName, runId) => requests.filter((r) => r.body.case.name === caseName && (runId === undefined || r.body.run_id === runId)),
    setBehaviour(fn) {
      current = fn;
    },
    close: () => closeHttpServer(server),
  };
}
