import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../core/os/processes.js';
import type { AuthState, MemberView, SessionView } from '../../core/model/user.js';
import type { QueueItem } from '../../core/model/queue.js';
import type { Comparison, Feedback } from '../../core/model/feedback.js';
import { oidcSignIn, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { startTestApi, type TestApi } from '../helpers/server.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { expectAnswerMatchesOpenApi } from '../helpers/openapi-responses.js';

/**
 * People sign in with OpenID Connect (docs/security.md, "Signing in") through a real provider on
 * loopback (oidc-provider), the authorization code flow with PKCE, state and nonce run by the
 * service's openid-client: their names come from the provider's claims, they get no project until
 * a project admin grants a role, roles are enforced per project, and what they record carries
 * their name. The real service (API role, PostgreSQL, chDB).
 */

let svc: TestApi;
let idp: TestOidcProvider;
const ACCOUNTS = {
  ada: { name: 'Ada Lovelace', email: 'ada@example.com' },
  grace: { name: 'Grace Hopper', email: 'grace@example.com' },
  mallory: { name: 'Mallory', email: 'root@example.com', emailVerified: false },
};

interface Person {
  cookie: string;
  csrf: string;
  session: SessionView;
}

/** A call as a signed-in person's dashboard makes it: the cookie, the CSRF token on writes, the project. */
async function as(person: Person, path: string, init: { method?: string; json?: unknown; project?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { cookie: person.cookie, 'x-project-id': init.project ?? svc.defaultProjectId };
  if (init.method && init.method !== 'GET') headers['x-csrf-token'] = person.csrf;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${svc.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  // Every answer is checked against the OpenAPI document, as svc.api's are (docs/api.md, "OpenAPI").
  await expectAnswerMatchesOpenApi(init.method ?? 'GET', `${svc.apiUrl}${path}`, res);
  return res;
}

async function signIn(login: keyof typeof ACCOUNTS): Promise<Person> {
  const { cookie } = await oidcSignIn(svc.apiUrl!, login);
  const state = (await (await fetch(`${svc.apiUrl}/api/auth/session`, { headers: { cookie } })).json()) as AuthState;
  return { cookie, csrf: state.session!.csrf_token, session: state.session! };
}

beforeAll(async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider(url, ACCOUNTS);
  svc = await startTestApi({
    PORT: String(port),
    AGENT_EVAL_ROLES: 'api',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    OIDC_ADMIN_EMAILS: 'ada@example.com, root@example.com',
    ...idp.env(url),
  });
});
afterAll(async () => {
  await svc?.stop();
  await idp?.close();
});

describe('signing in with OpenID Connect', () => {
  it('offers the provider by name, and sends the browser to it with PKCE (S256), state and nonce', async () => {
    const state = (await (await fetch(`${svc.apiUrl}/api/auth/session`)).json()) as AuthState;
    expect(state.sign_in).toEqual({ api_key: true, oidc: { name: 'Test IdP' } });
    const start = await fetch(`${svc.apiUrl}/api/auth/oidc/start?next=/runs`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const to = new URL(start.headers.get('location')!);
    expect(to.origin).toBe(idp.issuer);
    expect(to.searchParams.get('client_id')).toBe(idp.clientId);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('state')).toBeTruthy();
    expect(to.searchParams.get('nonce')).toBeTruthy();
    expect(to.searchParams.get('redirect_uri')).toBe(`${svc.apiUrl}/api/auth/oidc/callback`);
    // The attempt's state, nonce and verifier wait in an HttpOnly cookie of this browser.
    const attempt = start.headers.getSetCookie().find((c) => c.startsWith('agent-eval-oidc='))!;
    expect(attempt).toContain('HttpOnly');
    expect(attempt).toContain('SameSite=Lax');
  });

  it("signs a person in: a session named after the provider's claims, back on the page they asked for", async () => {
    const { cookie, location } = await oidcSignIn(svc.apiUrl!, 'ada', '/runs?status=failed');
    expect(location).toBe(`${svc.apiUrl}/runs?status=failed`);
    const state = (await (await fetch(`${svc.apiUrl}/api/auth/session`, { headers: { cookie } })).json()) as AuthState;
    expect(state.session).toMatchObject({ kind: 'user', user: { name: 'Ada Lovelace', email: 'ada@example.com', server_admin: true }, key: null });
    // A server admin (OIDC_ADMIN_EMAILS, verified email) is admin in every project.
    expect(state.session!.projects).toEqual([expect.objectContaining({ id: svc.defaultProjectId, role: 'admin' })]);
  });

  it('makes nobody a server admin by an email the provider has not verified', async () => {
    const mallory = await signIn('mallory');
    expect(mallory.session.user).toMatchObject({ email: 'root@example.com', server_admin: false });
    expect(mallory.session.projects).toEqual([]);
  });

  it('a callback that does not belong to this browser goes back to the sign-in page with why, signing nobody in', async () => {
    const res = await fetch(`${svc.apiUrl}/api/auth/oidc/callback?code=stolen&state=theirs`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/signin?error=expired');
    expect(res.headers.getSetCookie().some((c) => /^agent-eval-session=[^;]/.test(c))).toBe(false);
  });
});

describe('roles per project', () => {
  let ada: Person;
  let grace: Person;

  beforeAll(async () => {
    ada = await signIn('ada');
    grace = await signIn('grace');
  });

  it('a person the provider signs in gets no project until a project admin grants one', async () => {
    expect(grace.session.user).toMatchObject({ name: 'Grace Hopper', server_admin: false });
    expect(grace.session.projects).toEqual([]);
    const res = await as(grace, '/api/traces');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { details: string }).details).toBe(`this account has no access to project ${svc.defaultProjectId}`);
  });

  it('a project admin grants viewer: the viewer reads but cannot write', async () => {
    const member = await json<MemberView>(
      await as(ada, `/api/projects/${svc.defaultProjectId}/members`, { method: 'POST', json: { email: 'GRACE@example.com', role: 'viewer' } }),
      201,
    );
    expect(member).toMatchObject({ user_id: grace.session.user!.id, name: 'Grace Hopper', role: 'viewer', granted_by: ada.session.user!.id });
    expect((await as(grace, '/api/traces')).status).toBe(200);
    const write = await as(grace, '/api/feedback/comparisons', { method: 'POST', json: { prompt: 'p', output_a: 'a', output_b: 'b' } });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { details: string }).details).toBe('missing permission feedback:write');
    // Nor may a viewer manage members.
    expect((await as(grace, `/api/projects/${svc.defaultProjectId}/members`)).status).toBe(403);
  });

  it('an admin changes the role to member; the change and the grant are in the audit log, by name', async () => {
    await json<MemberView>(
      await as(ada, `/api/projects/${svc.defaultProjectId}/members/${grace.session.user!.id}`, { method: 'PUT', json: { role: 'member' } }),
      200,
    );
    expect((await as(grace, '/api/feedback/comparisons', { method: 'POST', json: { prompt: 'p', output_a: 'a', output_b: 'b' } })).status).toBe(201);
    const audit = await json<{ entries: Array<{ action: string; actor: { kind: string; name: string }; target: string; details: Record<string, unknown> }> }>(
      await svc.api('/api/audit?action=member'),
      200,
    );
    const mine = audit.entries.filter((e) => e.target === grace.session.user!.id);
    expect(mine.map((e) => e.action)).toContain('member.added');
    const changed = (
      await json<{ entries: Array<{ action: string; actor: { kind: string; name: string }; target: string; details: Record<string, unknown> }> }>(
        await svc.api('/api/audit?action=role.changed'),
        200,
      )
    ).entries;
    expect(changed[0]).toMatchObject({
      actor: { kind: 'user', name: 'Ada Lovelace' },
      target: grace.session.user!.id,
      details: { role: 'member', previous: 'viewer' },
    });
    const signIns = (await json<{ entries: Array<{ actor: { kind: string; name: string } }> }>(await svc.api('/api/audit?action=user.signed_in'), 200)).entries;
    expect(signIns.map((e) => e.actor.name)).toContain('Grace Hopper');
  });

  it('what a person records carries their name: feedback, an annotation score, an answered comparison, a completed review', async () => {
    const score = await json<{ scorer_name: string | null; source: string }>(
      await as(grace, '/api/scores', {
        method: 'POST',
        json: { trace_id: 'oidc-trace-1', name: 'faithful', value: 0.5, source: 'annotation', scorer_name: 'someone else' },
      }),
      201,
    );
    expect(score).toMatchObject({ scorer_name: 'Grace Hopper', source: 'annotation' });
    const fb = await json<Feedback>(
      await as(grace, '/api/feedback', { method: 'POST', json: { type: 'rating', trace_id: 'oidc-trace-1', rating: { name: 'helpful', value: 1 } } }),
      201,
    );
    expect(fb).toMatchObject({ user_id: grace.session.user!.id, user_name: 'Grace Hopper' });
    // A person cannot record as someone else.
    const other = await as(grace, '/api/feedback', {
      method: 'POST',
      json: { type: 'rating', trace_id: 'oidc-trace-1', user_id: 'someone-else', rating: { name: 'helpful', value: 1 } },
    });
    expect(other.status).toBe(422);

    const comparison = await json<Comparison>(
      await as(grace, '/api/feedback/comparisons', { method: 'POST', json: { prompt: 'p', output_a: 'a', output_b: 'b' } }),
      201,
    );
    const answered = await json<{ comparison: Comparison; feedback: Feedback }>(
      await as(grace, `/api/feedback/comparisons/${comparison.id}/answer`, { method: 'POST', json: { preferred: 'b' } }),
      201,
    );
    expect(answered.comparison).toMatchObject({ answered_by: grace.session.user!.id, answered_by_name: 'Grace Hopper' });
    expect(answered.feedback.user_name).toBe('Grace Hopper');

    const queue = await json<{ id: string }>(
      await as(ada, '/api/queues', { method: 'POST', json: { name: 'oidc review', trace_ids: ['oidc-trace-1'], score_names: ['ok'] } }),
      201,
    );
    const next = await json<{ item: QueueItem }>(await as(grace, `/api/queues/${queue.id}/next`, { method: 'POST', json: {} }), 200);
    expect(next.item).toMatchObject({ locked_by: grace.session.user!.id, locked_by_name: 'Grace Hopper' });
    const done = await json<{ item: QueueItem }>(
      await as(grace, `/api/queues/${queue.id}/items/${next.item.id}/complete`, { method: 'POST', json: { scores: { ok: 1 } } }),
      200,
    );
    expect(done.item).toMatchObject({ status: 'completed', completed_by: grace.session.user!.id, completed_by_name: 'Grace Hopper' });
  });

  it("is judged per project: an admin of one project who is a viewer of another cannot manage the other's members", async () => {
    const other = 'oidc-other';
    await svc.keyFor(other);
    await json(await as(ada, `/api/projects/${other}/members`, { method: 'POST', json: { email: 'grace@example.com', role: 'admin' }, project: other }), 201);
    await json(await as(ada, `/api/projects/${svc.defaultProjectId}/members/${grace.session.user!.id}`, { method: 'PUT', json: { role: 'viewer' } }), 200);
    // Grace is admin of `other`, viewer of the default project; naming `other` in the header changes nothing.
    const res = await as(grace, `/api/projects/${svc.defaultProjectId}/members`, {
      method: 'POST',
      json: { email: 'ada@example.com', role: 'viewer' },
      project: other,
    });
    expect(res.status).toBe(403);
    expect((await as(grace, `/api/projects/${other}/members`, { project: other })).status).toBe(200);
  });

  it('a removed member reaches the project no more, at once', async () => {
    expect((await as(ada, `/api/projects/${svc.defaultProjectId}/members/${grace.session.user!.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await as(grace, '/api/traces')).status).toBe(403);
    expect((await as(ada, `/api/projects/${svc.defaultProjectId}/members/${grace.session.user!.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('granting a role to someone who never signed in is a 404 that says so', async () => {
    const res = await as(ada, `/api/projects/${svc.defaultProjectId}/members`, { method: 'POST', json: { email: 'nobody@example.com', role: 'viewer' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it("signing out ends the person's session: the cookie no longer works", async () => {
    const again = await signIn('ada');
    expect((await as(again, '/api/traces')).status).toBe(200);
    expect((await as(again, '/api/auth/sign-out', { method: 'POST' })).status).toBe(204);
    expect((await as(again, '/api/traces')).status).toBe(401);
    // Her other session (another browser) is not this one: it still works.
    expect((await as(ada, '/api/traces')).status).toBe(200);
  });
});
