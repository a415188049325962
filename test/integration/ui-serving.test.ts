import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureUiBuild } from '../../scripts/build-ui.js';
import { startTestService, type TestService } from '../helpers/server.js';

/**
 * The dashboard and the API on one port (docs/dashboard.md): SvelteKit's adapter-node handler
 * answers every path but /api, /v1 and /metrics, which stay the API's.
 */
describe('dashboard served by the API process', () => {
  let svc: TestService;

  beforeAll(async () => {
    // Seconds when ui/ changed since the last build, nothing otherwise (test/global-setup.ts builds it too).
    await ensureUiBuild();
    svc = await startTestService();
  });
  afterAll(() => svc?.stop());

  const get = (path: string) => fetch(`${svc.apiUrl}${path}`);

  it('answers / and the pages with the SvelteKit app shell', async () => {
    for (const path of ['/', '/traces', '/traces/some-trace?span=abc', '/signin', '/runs']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toContain('text/html');
      const html = await res.text();
      expect(html, path).toContain('__sveltekit');
      expect(html, path).toContain('/_app/immutable/');
    }
  });

  it('serves the built JavaScript and CSS with their content types, cacheable for good', async () => {
    const html = await (await get('/traces')).text();
    const js = /\/_app\/immutable\/[^"']+\.js/.exec(html)?.[0];
    expect(js).toBeDefined();
    const res = await get(js!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(await res.text()).toMatch(/import|export/);
    const missing = await get('/_app/immutable/chunks/nope.js');
    expect(missing.status).toBe(404);
  });

  it('keeps /api, /metrics and OTLP/HTTP the API\'s', async () => {
    const health = await get('/api/health');
    expect(health.headers.get('content-type')).toContain('application/json');
    expect(typeof ((await health.json()) as { status: unknown }).status).toBe('string');
    // An unknown API path is the API's JSON 404, not the dashboard's page.
    const unknown = await svc.api('/api/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/json');
    // Without credentials /api is still refused: the dashboard opens no door.
    expect((await get('/api/traces')).status).toBe(401);
    expect((await get('/metrics')).headers.get('content-type')).toContain('text/plain');
    const otlpGet = await get('/v1/traces');
    expect([404, 405]).toContain(otlpGet.status);
    expect(otlpGet.headers.get('content-type')).not.toContain('text/html');

    const traceId = '5b8efff798038103d269b633813fc60c';
    const now = BigInt(Date.now()) * 1_000_000n;
    const otlp = await fetch(`${svc.apiUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': svc.apiKey! },
      body: JSON.stringify({
        resourceSpans: [
          { scopeSpans: [{ spans: [{ traceId, spanId: 'eee19b7ec3c1b174', name: 'ui-serving', kind: 1, startTimeUnixNano: String(now - 5_000_000n), endTimeUnixNano: String(now) }] }] },
        ],
      }),
    });
    expect(otlp.status).toBe(200);
    expect(otlp.headers.get('content-type')).toContain('application/json');
    const trace = await svc.api(`/api/traces/${traceId}`);
    expect(trace.status).toBe(200);
    expect(await trace.json()).toMatchObject({ trace_id: traceId, span_count: 1 });
  });
});
