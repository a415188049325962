import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/server.js';

/**
 * A process without the api role (a collector here) serves /metrics on HEALTH_PORT under the same
 * rule as the API's port (docs/security.md, "Metrics"): credentials or the scrape token, else 401;
 * /api/health stays open for probes. Both carry the security headers.
 */

const TOKEN = 'health-port-scrape-token-0123456789abcdef';
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ AGENT_EVAL_ROLES: 'collector', METRICS_TOKEN: TOKEN });
  if (!svc.healthUrl) throw new Error('a collector-only process serves no health port');
});
afterAll(async () => {
  await svc?.stop();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${svc.healthUrl}${path}`, { headers });

describe('GET /metrics on HEALTH_PORT', () => {
  it('is 401 in the SPEC body without credentials or with a wrong token', async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong' }];
    for (const headers of attempts) {
      const res = await get('/metrics', headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'Unauthorized', code: 'UNAUTHORIZED', status: 401, hint: 'Provide a bearer token or an API key header' });
    }
  });

  it('answers the scrape token and an admin key', async () => {
    const credentials: Array<Record<string, string>> = [{ authorization: `Bearer ${TOKEN}` }, { 'x-api-key': svc.apiKey! }];
    for (const headers of credentials) {
      const res = await get('/metrics', headers);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^agent_eval_ingest_pending_spans 0$/m);
    }
  });

  it('keeps /api/health open, and both answers carry the security headers', async () => {
    const health = await get('/api/health');
    expect(health.status).toBe(200);
    for (const res of [health, await get('/metrics')]) {
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    }
  });
});
