import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadCorpus } from '../test/helpers/corpus.js';
import { callTool, mcpClient } from '../test/helpers/mcp-client.js';
import { startTestApi } from '../test/helpers/server.js';
import { summarize } from './lib.js';

/**
 * Issue 31, "Measure": MCP tool latency as a coding agent sees it, through the MCP SDK's client
 * over Streamable HTTP to the service's /mcp (the API in this process on its real stores: chDB
 * and embedded PostgreSQL). The corpus' JSON traces (the SPEC trace with its ~600 KB answer) and
 * `traces` more small ones are ingested first; then `calls` times each of: search_traces with no
 * filter, with a text search, with has_errors; get_trace of the corpus trace (condensed, every
 * span read) and get_span_text of its longest text. Each call is one HTTP request to /mcp (a
 * stateless server made per request) plus the API calls the tool makes in process.
 * Run: `npm run bench -- mcp-tools [--traces N] [--runs N]`.
 */
export interface McpBenchOptions {
  traces: number;
  calls: number;
}

async function timeCalls(n: number, call: () => Promise<{ error: string | null }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await call();
    out.push(performance.now() - t0);
    if (res.error) throw new Error(res.error);
  }
  return out;
}

export async function benchMcpTools(o: McpBenchOptions): Promise<Record<string, unknown>> {
  const api = await startTestApi();
  let client: Client | undefined;
  try {
    const corpus = loadCorpus();
    for (const t of corpus.json) await api.api('/api/traces/ingest', { method: 'POST', json: t.body });
    const now = Date.now() - 60_000;
    for (let i = 0; i < o.traces; i++) {
      const id = `mcp-bench-${i}`;
      const start = new Date(now + i).toISOString();
      await api.api('/api/traces/ingest', {
        method: 'POST',
        json: {
          trace_id: id,
          name: `support-${i % 7}`,
          start_time: start,
          spans: [
            {
              span_id: `${id}-root`,
              name: 'agent',
              type: 'span',
              status: i % 11 === 0 ? 'error' : 'ok',
              input: `question ${i}`,
              output: `answer ${i}`,
              start_time: start,
            },
          ],
        },
      });
    }
    client = await mcpClient(api.apiUrl!, api.apiKey!);
    const spec = corpus.json[0].body as { trace_id: string };
    const read = await callTool<{ span_ids: string[] }>(client, 'get_trace', { trace_id: spec.trace_id });
    const sizes = await Promise.all(read.value.span_ids.map((id) => callTool<{ total_chars: number }>(client!, 'get_span_text', { span_id: id })));
    const longest = read.value.span_ids[sizes.reduce((best, s, i) => (s.value.total_chars > sizes[best].value.total_chars ? i : best), 0)];
    const c = client;
    return {
      traces: o.traces + corpus.json.length,
      searchMs: summarize(await timeCalls(o.calls, () => callTool(c, 'search_traces', { limit: 20 }))),
      searchTextMs: summarize(await timeCalls(o.calls, () => callTool(c, 'search_traces', { search: 'Lisbon', limit: 20 }))),
      searchErrorsMs: summarize(await timeCalls(o.calls, () => callTool(c, 'search_traces', { has_errors: true, limit: 20 }))),
      traceReadMs: summarize(await timeCalls(o.calls, () => callTool(c, 'get_trace', { trace_id: spec.trace_id }))),
      spanTextMs: summarize(await timeCalls(o.calls, () => callTool(c, 'get_span_text', { span_id: longest }))),
    };
  } finally {
    await client?.close();
    await api.stop();
  }
}
