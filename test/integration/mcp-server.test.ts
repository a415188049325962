import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadCorpus } from '../helpers/corpus.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { eventually } from '../helpers/eventually.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * The MCP server (issue 31, docs/mcp.md) through the MCP SDK's own client over Streamable HTTP,
 * against the real service with its Temporal worker: the tools listed, the corpus traces searched
 * and read condensed, a suite run started through MCP and run by the worker, its failures read,
 * a trace added to a suite; a viewer key refused what the API refuses it; bad input as MCP errors.
 */

let service: TestService;
let agent: TestAgent;
let client: Client;
const corpus = loadCorpus();
const spec = corpus.json[0];

beforeAll(async () => {
  agent = await startTestAgent((req) => {
    const input = req.body.input as { answer?: string };
    return { json: { output: input.answer ?? '', tool_calls: [] } };
  });
  service = await startTestService({ EVAL_RETRY_TIME_SCALE: '0.001' });
  for (const trace of corpus.json) await json(await service.api('/api/traces/ingest', { method: 'POST', json: trace.body }), 201);
  await json(await service.api('/api/agents', { method: 'POST', json: { name: 'mcp-agent', endpoint: agent.url } }), 201);
  await postSuite(service, {
    name: 'mcp-suite',
    agent_id: 'mcp-agent',
    defaultScorers: ['contains'],
    cases: [
      { name: 'sunny', input: { answer: 'It is sunny' }, expected: { outputContains: ['sunny'] } },
      { name: 'snowy', input: { answer: 'I do not know' }, expected: { outputContains: ['snow'] } },
    ],
  });
  client = await mcpClient(service.apiUrl!, service.apiKey!);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await service?.stop();
  await agent?.close();
});

describe('the MCP server', () => {
  it('lists its tools and resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'add_trace_to_suite',
      'compare_runs',
      'get_prompt',
      'get_run',
      'get_run_failures',
      'get_session',
      'get_span_text',
      'get_trace',
      'list_runs',
      'list_sessions',
      'search_traces',
      'start_run',
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate).sort()).toEqual(['agent-eval://prompts/{name}', 'agent-eval://suites/{id}']);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name)).toContain('mcp-suite');
  });

  it('searches the corpus traces and reads one condensed, with its long texts a call away', async () => {
    const found = await callTool<{ traces: Array<{ trace_id: string; name: string }> }>(client, 'search_traces', { search: 'Lisbon', limit: 5 });
    expect(found.error).toBeNull();
    expect(found.value.traces.map((t) => t.trace_id)).toContain(spec.body.trace_id);

    const errors = await callTool<{ traces: Array<{ trace_id: string }> }>(client, 'search_traces', { has_errors: true });
    expect(errors.error).toBeNull();

    const read = await callTool<{ trace: { trace_id: string }; condensed: string; span_ids: string[] }>(client, 'get_trace', { trace_id: spec.body.trace_id });
    expect(read.error).toBeNull();
    expect(read.value.trace.trace_id).toBe(spec.body.trace_id);
    expect(read.value.condensed).toMatch(/spans, \d+ model calls/);
    expect(read.value.span_ids.length).toBeGreaterThan(1);
    // The ~600 KB answer is cut in the condensed trace; get_span_text pages through it whole.
    const tool = await client.callTool({ name: 'get_trace', arguments: { trace_id: spec.body.trace_id } });
    expect(JSON.stringify(tool).length).toBeLessThan(40_000);
    const longest = await Promise.all(
      read.value.span_ids.map((id) => callTool<{ total_chars: number; next_offset: number | null; text: string }>(client, 'get_span_text', { span_id: id })),
    );
    const big = longest.find((r) => r.value.total_chars > 100_000);
    expect(big?.value.next_offset).toBe(8_000);
    expect(big?.value.text).toHaveLength(8_000);
  });

  it('starts a run of a suite, polls it to its end and reads its failed case with the reason', async () => {
    const started = await callTool<{ run_id: string; status: string }>(client, 'start_run', { suite_name: 'mcp-suite', agent_version: 'v1' });
    expect(started.error).toBeNull();
    const run = await eventually(async () => {
      const polled = await callTool<{ status: string; summary: { passed: number; failed: number } }>(client, 'get_run', { run_id: started.value.run_id });
      expect(polled.value.status).toBe('completed');
      return polled.value;
    }, 90_000);
    expect(run.summary).toMatchObject({ passed: 1, failed: 1 });

    const failures = await callTool<{ failed_cases: number; cases: Array<{ case_name: string; scorers: Record<string, { score: number; reason: string }> }> }>(
      client,
      'get_run_failures',
      { run_id: started.value.run_id },
    );
    expect(failures.error).toBeNull();
    expect(failures.value.failed_cases).toBe(1);
    expect(failures.value.cases[0].case_name).toBe('snowy');
    expect(failures.value.cases[0].scorers.contains.score).toBe(0);
    expect(failures.value.cases[0].scorers.contains.reason).toMatch(/snow/);

    const listed = await callTool<{ runs: Array<{ run_id: string }> }>(client, 'list_runs', { suite_name: 'mcp-suite' });
    expect(listed.value.runs.map((r) => r.run_id)).toContain(started.value.run_id);

    // The same agent again: compare_runs counts the cases; none changed, so none is listed.
    const again = await callTool<{ run_id: string }>(client, 'start_run', { suite_name: 'mcp-suite', agent_version: 'v1-again' });
    await eventually(
      async () => expect((await callTool<{ status: string }>(client, 'get_run', { run_id: again.value.run_id })).value.status).toBe('completed'),
      90_000,
    );
    const compared = await callTool<{
      summary: string;
      passed: boolean;
      case_counts: Record<string, number>;
      changed_total: number;
      changed_cases: unknown[];
      next_offset: number | null;
    }>(client, 'compare_runs', { baseline_run_id: started.value.run_id, candidate_run_id: again.value.run_id });
    expect(compared.error).toBeNull();
    expect(compared.value.passed).toBe(true);
    expect(compared.value.case_counts).toEqual({ compared: 2, regressed: 0, improved: 0, mixed: 0, unchanged: 2 });
    expect(compared.value.changed_total).toBe(0);
    expect(compared.value.changed_cases).toEqual([]);
    expect(compared.value.next_offset).toBeNull();
    expect(compared.value.summary).toMatch(/^PASSED: 2 cases compared: 0 regressed/);
  }, 180_000);

  it('adds a corpus trace to a suite as a case that records its source', async () => {
    const { suites } = await json<{ suites: Array<{ id: string; name: string }> }>(await service.api('/api/suites?name=mcp-suite'), 200);
    const suite = suites.find((s) => s.name === 'mcp-suite')!;
    const added = await callTool<{ suite: { version: number }; cases: string[] }>(client, 'add_trace_to_suite', {
      suite_id: suite.id,
      trace_ids: [spec.body.trace_id],
    });
    expect(added.error).toBeNull();
    expect(added.value.suite.version).toBe(2);
    expect(added.value.cases[0]).toContain(spec.body.trace_id);
  });

  it("refuses through MCP what the API refuses a viewer's key", async () => {
    const viewer = await json<{ key: string }>(
      await service.api(`/api/projects/${service.defaultProjectId}/keys`, { method: 'POST', json: { name: 'mcp viewer', role: 'viewer', env: 'test' } }),
      201,
    );
    const api = await service.api('/api/evals/runs', { method: 'POST', key: viewer.key, json: { suite_name: 'mcp-suite', agent_version: 'v1' } });
    expect(api.status).toBe(403);
    const asViewer = await mcpClient(service.apiUrl!, viewer.key);
    try {
      const refused = await callTool(asViewer, 'start_run', { suite_name: 'mcp-suite', agent_version: 'v1' });
      expect(refused.error).toMatch(/^API error 403/);
      // What a viewer may read, it reads.
      const found = await callTool<{ traces: unknown[] }>(asViewer, 'search_traces', { limit: 1 });
      expect(found.error).toBeNull();
    } finally {
      await asViewer.close();
    }
    // No key at all: the connection itself is refused, as the API refuses it.
    await expect(mcpClient(service.apiUrl!, 'ae_test_not-a-key')).rejects.toThrow(/401/);
  });

  it('answers bad input with MCP errors, never a crash', async () => {
    const unknown = await client
      .callTool({ name: 'drop_tables', arguments: {} })
      .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
    expect(unknown.isError).toBe(true);
    const bad = await client
      .callTool({ name: 'get_trace', arguments: { trace_id: 'x'.repeat(100_000) } })
      .catch((err: Error) => ({ isError: true, error: err.message }));
    expect(bad.isError).toBe(true);
    const missing = await callTool(client, 'get_trace', { trace_id: 'no-such-trace' });
    expect(missing.error).toMatch(/^API error 404/);
    const hostile = await callTool(client, 'get_run', { run_id: '../../etc/passwd\u0000' });
    expect(hostile.error).toMatch(/^API error (400|404)/);
    const get = await fetch(new URL('/mcp', service.apiUrl), { headers: { 'x-api-key': service.apiKey! } });
    expect(get.status).toBe(405);
    // Plain JSON-RPC through the API client, whose answers are checked against the OpenAPI document's JSON-RPC schemas.
    const accept = { accept: 'application/json, text/event-stream' };
    const listed = await service.api('/mcp', { method: 'POST', headers: accept, json: { jsonrpc: '2.0', id: 7, method: 'tools/list' } });
    expect(listed.status).toBe(200);
    const rpc = (await listed.json()) as { jsonrpc: string; id: number; result: { tools: Array<{ name: string }> } };
    expect(rpc).toMatchObject({ jsonrpc: '2.0', id: 7 });
    expect(rpc.result.tools.map((t) => t.name)).toContain('compare_runs');
    const notRpc = await service.api('/mcp', { method: 'POST', headers: accept, json: { hello: 'world' } });
    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as { error: { code: number } }).error.code).toBeLessThan(0);
    // The service still answers.
    expect((await callTool(client, 'list_runs', {})).error).toBeNull();
  });
});
