import crypto from 'node:crypto';
import { expect } from 'vitest';
import { pollUntil } from '../../helpers/processes.js';
import { sampleTrace } from '../../helpers/server.js';

/**
 * Ingests a two-span JSON trace through `api` and waits (15 s at most) until the API reads it
 * back: what "tracing keeps working" means whatever state the workflow engine is in.
 */
export async function expectTracingWorks(api: (pathname: string, init?: RequestInit & { json?: unknown }) => Promise<Response>): Promise<void> {
  const traceId = crypto.randomBytes(16).toString('hex');
  const res = await api('/api/traces/ingest', { method: 'POST', json: sampleTrace(traceId, { spanCount: 2 }) });
  expect(res.status, await res.text()).toBeLessThan(300);
  await pollUntil('the trace to be readable', async () => ((await api(`/api/traces/${traceId}`)).status === 200 ? true : undefined), { timeoutMs: 15_000 });
}
