import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetadataStore } from '../../core/store/postgres/metadata-store.js';
import type { SessionView } from '../../core/model/user.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * The dashboard's sessions (docs/security.md, "Signing in"), against the real service (API role,
 * PostgreSQL): an API key exchanged for an HttpOnly session cookie, CSRF protection of requests
 * made with it, sign-out and both expiries ending it server-side, and API keys unaffected.
 */

let svc: TestApi;
let metadata: MetadataStore;
const COMPARISON = { prompt: 'which is better?', output_a: 'a', output_b: 'b' };

/** A session opened with `key` as the sign-in page opens it: its cookie (name=value) and what the server answered. */
async function signIn(key: string, headers: Record<string, string> = {}): Promise<{ res: Response; cookie: string; view: SessionView; setCookie: string }> {
  const res = await fetch(`${svc.apiUrl}/api/auth/key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: svc.apiUrl!, ...headers },
    body: JSON.stringify({ key }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const setCookie = res.headers.getSetCookie().find((c) => c.includes('agent-eval-session='))!;
  return { res, cookie: setCookie.split(';')[0], view: JSON.parse(text) as SessionView, setCookie };
}

/** A call made with the session cookie only, as the dashboard's pages make it (same origin). */
function withCookie(cookie: string, path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { cookie, ...init.headers };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${svc.apiUrl}${path}`, { method: init.method ?? 'GET', headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
}

beforeAll(async () => {
  svc = await startTestApi({ SESSION_IDLE_MINUTES: '30', SESSION_MAX_HOURS: '24' });
  metadata = openServiceMetadata(svc.dataDir);
});
afterAll(async () => {
  await metadata?.close();
  await svc?.stop();
});

describe('signing in with an API key', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie on Path=/ that lasts SESSION_MAX_HOURS, and answers without the key', async () => {
    const { setCookie, view, res } = await signIn(svc.apiKey!);
    const flags = setCookie.split(';').map((f) => f.trim());
    expect(flags[0]).toMatch(/^agent-eval-session=[A-Za-z0-9_-]{43}$/);
    expect(flags).toContain('HttpOnly');
    expect(flags).toContain('SameSite=Lax');
    expect(flags).toContain('Path=/');
    expect(flags).toContain(`Max-Age=${24 * 3600}`);
    // Plain http on loopback (this test): no Secure flag, which the browser would refuse here.
    expect(flags).not.toContain('Secure');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(view.kind).toBe('api_key');
    expect(view.key?.project_id).toBe(svc.defaultProjectId);
    expect(view.key?.role).toBe('admin');
    expect(view.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(view.projects.map((p) => [p.id, p.role])).toEqual([[svc.defaultProjectId, 'admin']]);
    expect(JSON.stringify(view)).not.toContain(svc.apiKey);
  });

  it('over https (X-Forwarded-Proto from a proxy) the cookie is Secure and __Host- prefixed', async () => {
    const { setCookie } = await signIn(svc.apiKey!, { 'x-forwarded-proto': 'https', origin: svc.apiUrl!.replace('http:', 'https:') });
    expect(setCookie).toMatch(/^__Host-agent-eval-session=/);
    expect(setCookie.split(';').map((f) => f.trim())).toContain('Secure');
  });

  it('refuses plain http to a host other than loopback (the cookie could not be Secure there): 400', async () => {
    const res = await fetch(`${svc.apiUrl}/api/auth/key`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-host': 'evals.example.com' },
      body: JSON.stringify({ key: svc.apiKey }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'INSECURE_TRANSPORT', error: expect.stringContaining('https') as unknown });
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('refuses a wrong key (401) and a sign-in posted by another site (403), setting no cookie', async () => {
    const wrong = await fetch(`${svc.apiUrl}/api/auth/key`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: `ae_live_${'x'.repeat(32)}` }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const cross = await fetch(`${svc.apiUrl}/api/auth/key`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify({ key: svc.apiKey }),
    });
    expect(cross.status).toBe(403);
    expect(await cross.json()).toMatchObject({ code: 'CSRF_REFUSED' });
    expect(cross.headers.getSetCookie()).toEqual([]);
    const empty = await fetch(`${svc.apiUrl}/api/auth/key`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({}) });
    expect(empty.status).toBe(422);
  });

  it('the cookie alone authenticates reads; GET /api/auth/session shows the session and its CSRF token', async () => {
    const { cookie, view } = await signIn(svc.apiKey!);
    expect((await withCookie(cookie, '/api/traces')).status).toBe(200);
    const state = (await (await withCookie(cookie, '/api/auth/session')).json()) as { auth_mode: string; session: SessionView };
    expect(state.auth_mode).toBe('required');
    expect(state.session.csrf_token).toBe(view.csrf_token);
    const anonymous = (await (await fetch(`${svc.apiUrl}/api/auth/session`)).json()) as { session: unknown; sign_in: unknown };
    expect(anonymous).toMatchObject({ session: null, sign_in: { api_key: true, oidc: null } });
  });
});

describe('CSRF protection of requests made with the session cookie', () => {
  it('refuses a state-changing request without the X-CSRF-Token header: 403 saying why', async () => {
    const { cookie } = await signIn(svc.apiKey!);
    const res = await withCookie(cookie, '/api/feedback/comparisons', { method: 'POST', json: COMPARISON });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: 'Forbidden',
      code: 'CSRF_REFUSED',
      status: 403,
      details: 'CSRF token missing or invalid: a request signed in with the session cookie must send X-CSRF-Token',
      hint: 'Send the X-CSRF-Token header with the csrf_token of GET /api/auth/session, or call with an API key',
    });
    const wrong = await withCookie(cookie, '/api/feedback/comparisons', { method: 'POST', json: COMPARISON, headers: { 'x-csrf-token': 'A'.repeat(43) } });
    expect(wrong.status).toBe(403);
  });

  it('takes it with the token from the same origin; refuses another Origin and cross-site fetches even with the token', async () => {
    const { cookie, view } = await signIn(svc.apiKey!);
    const ok = await withCookie(cookie, '/api/feedback/comparisons', {
      method: 'POST',
      json: COMPARISON,
      headers: { 'x-csrf-token': view.csrf_token, origin: svc.apiUrl! },
    });
    expect(ok.status, await ok.clone().text()).toBe(201);
    const otherOrigin = await withCookie(cookie, '/api/feedback/comparisons', {
      method: 'POST',
      json: COMPARISON,
      headers: { 'x-csrf-token': view.csrf_token, origin: 'https://evil.example' },
    });
    expect(otherOrigin.status).toBe(403);
    expect(((await otherOrigin.json()) as { details: string }).details).toContain('cross-origin request refused');
    // A link from another site (a top-level GET navigation carries a SameSite=Lax cookie) never uses the session.
    const navigation = await withCookie(cookie, '/api/traces', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(navigation.status).toBe(403);
    expect((await withCookie(cookie, '/api/traces', { headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
  });

  it('leaves API key requests alone: no token needed, and a stale cookie beside the key changes nothing', async () => {
    const res = await svc.api('/api/feedback/comparisons', { method: 'POST', json: COMPARISON, headers: { cookie: 'agent-eval-session=stale-or-forged' } });
    expect(res.status).toBe(201);
  });
});

describe('the end of a session', () => {
  it('sign-out ends it on the server: the same cookie no longer works', async () => {
    const { cookie, view } = await signIn(svc.apiKey!);
    const refused = await withCookie(cookie, '/api/auth/sign-out', { method: 'POST' });
    expect(refused.status).toBe(403);
    const out = await withCookie(cookie, '/api/auth/sign-out', { method: 'POST', headers: { 'x-csrf-token': view.csrf_token } });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^agent-eval-session=; .*Max-Age=0/);
    const after = await withCookie(cookie, '/api/traces');
    expect(after.status).toBe(401);
    expect(((await after.json()) as { details: string }).details).toContain('Your session has ended');
    expect(((await (await withCookie(cookie, '/api/auth/session')).json()) as { session: unknown }).session).toBeNull();
  });

  it('ends after SESSION_IDLE_MINUTES without a request, and at its absolute expiry', async () => {
    const idle = await signIn(svc.apiKey!);
    const absolute = await signIn(svc.apiKey!);
    expect((await withCookie(idle.cookie, '/api/traces')).status).toBe(200);
    // Time passes (the rows say so): 31 minutes without a request; the other one's lifetime is over.
    await metadata.pool.query("UPDATE sessions SET last_seen_at = now() - interval '31 minutes' WHERE csrf_token = $1", [idle.view.csrf_token]);
    await metadata.pool.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE csrf_token = $1", [absolute.view.csrf_token]);
    expect((await withCookie(idle.cookie, '/api/traces')).status).toBe(401);
    expect((await withCookie(absolute.cookie, '/api/traces')).status).toBe(401);
  });

  it("ends when its API key is revoked, and the key's secret is stored nowhere in the session", async () => {
    const made = await svc.api(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'short-lived', role: 'member' } });
    const key = (await made.json()) as { id: string; key: string };
    const { cookie } = await signIn(key.key);
    const { rows } = await metadata.pool.query<Record<string, unknown>>('SELECT * FROM sessions WHERE api_key_id = $1', [key.id]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(key.key);
    expect((await withCookie(cookie, '/api/traces')).status).toBe(200);
    expect((await svc.api(`/api/projects/${svc.defaultProjectId}/keys/${key.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await withCookie(cookie, '/api/traces')).status).toBe(401);
  });

  it("a viewer key's session reads but cannot write (403 missing permission)", async () => {
    const made = await svc.api(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'a viewer', role: 'viewer' } });
    const { cookie, view } = await signIn(((await made.json()) as { key: string }).key);
    expect((await withCookie(cookie, '/api/feedback/comparisons')).status).toBe(200);
    const res = await withCookie(cookie, '/api/feedback/comparisons', { method: 'POST', json: COMPARISON, headers: { 'x-csrf-token': view.csrf_token } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { details: string }).details).toBe('missing permission feedback:write');
  });
});
