import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * With AUTH_MODE=none there are no sessions (docs/security.md, "Signing in"): the dashboard calls
 * as anyone, naming its project. A file of its own: chDB opens one data directory per process.
 */
let svc: TestApi;

beforeAll(async () => {
  svc = await startTestApi({ AUTH_MODE: 'none' });
});
afterAll(async () => {
  await svc?.stop();
});

describe('AUTH_MODE=none', () => {
  it('has no sessions: GET /api/auth/session says so, POST /api/auth/key is 400, the cookie is never read', async () => {
    const state = (await (await fetch(`${svc.apiUrl}/api/auth/session`)).json()) as Record<string, unknown>;
    // The API alone in this process names no OTLP receiver (the service names its bound ports: dashboard-defects).
    expect(state).toEqual({
      auth_mode: 'none',
      sign_in: { api_key: false, oidc: null },
      session: null,
      ingest: { otlp_grpc_port: null, otlp_http_port: null },
    });
    const key = await fetch(`${svc.apiUrl}/api/auth/key`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'anything' }),
    });
    expect(key.status).toBe(400);
    expect(await key.json()).toMatchObject({ code: 'AUTH_DISABLED' });
    // Anyone calls as before, naming the project; a cookie changes nothing.
    const res = await fetch(`${svc.apiUrl}/api/traces`, { headers: { 'x-project-id': svc.defaultProjectId, cookie: 'agent-eval-session=whatever' } });
    expect(res.status).toBe(200);
  });
});
