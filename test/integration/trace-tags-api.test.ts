import { describe, expect, it } from 'vitest';
import type { TraceList } from '../../core/model/trace.js';
import { AgentEvalClient } from '../../sdk/index.js';
import { exportVia, recordTrace } from '../e2e/helpers/otel.js';
import { loadCorpus, toSpanSpecs } from '../helpers/corpus.js';
import { expectJson, useTestApi } from '../helpers/test-service-hooks.js';
import { ingestTrace } from '../helpers/ingest-trace.js';

/**
 * GET /api/traces?tag= (issue 29: "trace list filters by session_id, user_id, environment and
 * tags"): tags of every convention that has them. The corpus's OpenInference trace (`tag.tags`, a
 * string list, through the real OpenTelemetry SDK and exporter into the API port), a Langfuse
 * span (`langfuse.trace.tags`), a Vercel AI SDK span (`ai.telemetry.metadata.tags`) and the JSON
 * body's trace attributes (`tags`, comma-separated); another project's tagged traces never show.
 */
// Without credentials: OTLP exporters send no key (the read is under test, not the keys).
const svc = useTestApi({ AUTH_MODE: 'none' });
const OTHER = 'trace-tags-other';
const corpus = loadCorpus();
const OPENINFERENCE = corpus.otel.find((t) => t.name === 'openinference')!;
const SPEC = corpus.json.find((t) => t.name === 'spec')!;
let openinferenceId = '';

function trace(id: string, attrs: { span?: Record<string, string>; trace?: Record<string, string> }) {
  const root = { span_id: `${id}-r`, name: 'agent', type: 'span', input: 'hi', output: 'hello', attributes: attrs.span ?? {} };
  return ingestTrace(id, { name: `tagged ${id}`, start: Date.now() - 120_000, durationMs: 500, attributes: attrs.trace ?? {}, root });
}

async function ingest(body: unknown, project = svc.defaultProjectId) {
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body, project });
  expect(res.status, await res.clone().text()).toBe(201);
}
const ids = async (query: string, project = svc.defaultProjectId) =>
  (await expectJson<TraceList>(await svc.api(`/api/traces?limit=100&${query}`, { project }), 200)).traces.map((t) => t.trace_id).sort();

describe('GET /api/traces?tag=', () => {
  it('finds the traces tagged so, in every convention', async () => {
    const rec = await recordTrace(OPENINFERENCE.resource, toSpanSpecs(OPENINFERENCE));
    await exportVia('http/protobuf', svc.apiUrl!, svc.defaultProjectId, rec.spans);
    openinferenceId = rec.traceId;
    await ingest(trace('langfuse', { span: { 'langfuse.trace.tags': JSON.stringify(['support', 'beta']) } }));
    await ingest(trace('vercel', { span: { 'ai.telemetry.metadata.tags': JSON.stringify(['checkout']) } }));
    await ingest(trace('body', { trace: { tags: 'vip, beta' } }));
    await ingest(SPEC.body);

    expect(await ids('tag=support')).toEqual([openinferenceId, 'langfuse'].sort());
    expect(await ids('tag=arabic')).toEqual([openinferenceId]);
    expect(await ids('tag=beta')).toEqual(['body', 'langfuse']);
    expect(await ids('tag=vip')).toEqual(['body']);
    expect(await ids('tag=checkout')).toEqual(['vercel']);
    // Whole tags only, and case as sent.
    expect(await ids('tag=sup')).toEqual([]);
    expect(await ids('tag=Support')).toEqual([]);
    // With the other filters.
    expect(await ids('tag=beta&name=body')).toEqual(['body']);
    const viaSdk = await new AgentEvalClient({ url: svc.apiUrl, project: svc.defaultProjectId }).traces.list({ tag: 'support' });
    expect(viaSdk.traces.map((t) => t.trace_id).sort()).toEqual([openinferenceId, 'langfuse'].sort());
    expect(viaSdk.total).toBe(2);
  });

  it("never shows another project's tagged traces, and refuses a bad tag with a 422", async () => {
    await ingest(trace('theirs', { span: { 'tag.tags': JSON.stringify(['support']) } }), OTHER);
    expect(await ids('tag=support', OTHER)).toEqual(['theirs']);
    expect(await ids('tag=support')).toEqual([openinferenceId, 'langfuse'].sort());
    for (const q of ['tag=', `tag=${'t'.repeat(300)}`]) {
      const body = await expectJson<{ details: Array<{ field: string }> }>(await svc.api(`/api/traces?${q}`), 422);
      expect(body.details.map((d) => d.field)).toContain('tag');
    }
  });
});
