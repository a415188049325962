import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureUiBuild, UI_DIR } from '../../scripts/build-ui.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * The dashboard and the API on one port (docs/dashboard.md): SvelteKit's adapter-node handler
 * answers every path but /api, /v1 and /metrics, which stay the API's.
 */
describe('dashboard served by the API process', () => {
  let svc: TestApi;

  beforeAll(async () => {
    // Seconds when ui/ changed since the last build, nothing otherwise (test/global-setup.ts builds it too).
    await ensureUiBuild();
    svc = await startTestApi();
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

  it("keeps /api, /metrics and OTLP/HTTP the API's", async () => {
    const health = await get('/api/health');
    expect(health.headers.get('content-type')).toContain('application/json');
    expect(typeof ((await health.json()) as { status: unknown }).status).toBe('string');
    // An unknown API path is the API's JSON 404, not the dashboard's page.
    const unknown = await svc.api('/api/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/json');
    // Without credentials /api is still refused: the dashboard opens no door.
    expect((await get('/api/traces')).status).toBe(401);
    // /metrics needs credentials (docs/security.md, "Metrics"): the admin key scrapes it.
    expect((await svc.api('/metrics')).headers.get('content-type')).toContain('text/plain');
    expect((await get('/metrics')).status).toBe(401);
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
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId,
                    spanId: 'eee19b7ec3c1b174',
                    name: 'ui-serving',
                    kind: 1,
                    startTimeUnixNano: String(now - 5_000_000n),
                    endTimeUnixNano: String(now),
                  },
                ],
              },
            ],
          },
        ],
      }),
    });
    expect(otlp.status).toBe(200);
    expect(otlp.headers.get('content-type')).toContain('application/json');
    const trace = await svc.api(`/api/traces/${traceId}`);
    expect(trace.status).toBe(200);
    expect(await trace.json()).toMatchObject({ trace_id: traceId, span_count: 1 });
  });

  it('puts the security headers on every page and every API answer (docs/security.md, "Security headers")', async () => {
    const common = (res: Response, what: string) => {
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), what).toBe('DENY');
      expect(res.headers.get('referrer-policy'), what).toBe('strict-origin-when-cross-origin');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, what).toContain("frame-ancestors 'none'");
      expect(csp, what).not.toContain('unsafe-eval');
      return csp;
    };
    for (const page of pageRoutes()) {
      const res = await get(page);
      expect(res.status, page).toBe(200);
      const csp = directives(common(res, page));
      expect(csp['default-src'], page).toEqual(["'self'"]);
      // Scripts: this origin and the hash of the one inline bootstrap script, never 'unsafe-inline'.
      expect(csp['script-src'], page).not.toContain("'unsafe-inline'");
      const inline = [...(await res.text()).matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
      expect(inline.length, page).toBeGreaterThan(0);
      for (const script of inline) expect(csp['script-src'], page).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
      expect(csp['object-src'], page).toEqual(["'none'"]);
    }
    // A page answered 304 carries no policy of ours: the browser keeps the page's own (SvelteKit's)
    // with the cached copy. Ours (default-src 'none') would block every script on the next load.
    const first = await get('/traces');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    {
      const again = await fetch(`${svc.apiUrl}/traces`, { headers: { 'if-none-match': etag! } });
      expect(again.status).toBe(304);
      expect(again.headers.get('content-security-policy') ?? '').not.toContain("default-src 'none'");
      expect(again.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const html = await first.text();
    const asset = /\/_app\/immutable\/[^"']+\.js/.exec(html)![0];
    const answers: Array<[string, Response]> = [
      ['a script of the dashboard', await get(asset)],
      ['GET /api/health', await get('/api/health')],
      ['401 of /api/traces', await get('/api/traces')],
      ['GET /api/traces', await svc.api('/api/traces')],
      ['404 of /api/nothing', await svc.api('/api/nothing-here')],
      ['422 of POST /api/agents', await svc.api('/api/agents', { method: 'POST', json: {} })],
      ['POST /v1/traces', await svc.api('/v1/traces', { method: 'POST', json: { resourceSpans: [] } })],
      ['GET /metrics', await svc.api('/metrics')],
    ];
    for (const [what, res] of answers) {
      expect(res.status, what).toBeLessThan(500);
      expect(directives(common(res, what))['default-src'], what).toEqual(["'none'"]);
    }
  });
});

/** Every page of the dashboard, from ui/src/routes: a parameter becomes `x`, the catch-all an unknown path. */
function pageRoutes(): string[] {
  const root = path.join(UI_DIR, 'src', 'routes');
  const pages: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name === '+page.svelte') {
        const route = path.relative(root, dir).split(path.sep).filter(Boolean);
        pages.push('/' + route.map((part) => (part.startsWith('[...') ? 'no/such/page' : part.startsWith('[') ? 'x' : part)).join('/'));
      }
    }
  };
  walk(root);
  expect(pages.length).toBeGreaterThan(10);
  return pages.sort();
}

/** A Content-Security-Policy as `{directive: [sources]}`. */
function directives(csp: string): Record<string, string[]> {
  return Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name, sources]),
  );
}
