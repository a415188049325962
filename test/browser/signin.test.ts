import { describe, expect, it } from 'vitest';
import { freePort } from '../../core/os/processes.js';
import type { WatchedPage } from '../helpers/browser.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { oidcSignIn, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { startTestService } from '../helpers/server.js';

/**
 * Signing in to the dashboard in a real browser (Debian's Chromium, playwright-core), against
 * the real service and a real OpenID provider on loopback (oidc-provider): a person signs in with
 * the provider and lands on the dashboard under their name; the session is an HttpOnly cookie
 * and nothing secret is in the page's storage; an API key sign-in leaves no key behind; sign-out
 * ends the session; a script without the CSRF token is refused; a viewer cannot write.
 * Screenshots: test-output/screenshots/signin-*.png.
 */
let idp: TestOidcProvider;

/** A page that opens signed out; closed after the test. */
const open = (): Promise<WatchedPage> => suite.open({ signedIn: false });

/**
 * The page's errors that are the dashboard's: the provider's development login page (not ours)
 * asks for a Google font this closed network cannot reach and a favicon it does not serve.
 */
function dashboardErrors(p: WatchedPage): string {
  return p.errors
    .filter((e) => !e.startsWith('console.error at https://fonts.googleapis.com/') && !e.startsWith(`console.error at ${idp.issuer}/`))
    .join('\n---\n');
}

/** Everything the page keeps in web storage, as text. */
async function storageOf(p: WatchedPage): Promise<string> {
  return p.page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
}

/** Through the provider's login form (any login, any password). */
async function signInWithProvider(p: WatchedPage, login: string): Promise<void> {
  await p.page.goto('/traces');
  await p.page.waitForURL((url) => url.pathname === '/signin');
  await p.page.getByTestId('signin-oidc').click();
  await p.page.waitForURL((url) => url.origin === idp.issuer);
  await p.page.locator('input[name=login]').fill(login);
  await p.page.locator('input[name=password]').fill('any password');
  await p.page.locator('button[type=submit]').click();
  await p.page.waitForURL((url) => url.origin === svc.apiUrl && url.pathname === '/traces');
}

const suite = dashboardSuite({
  async start() {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    idp = await startOidcProvider(url, {
      ada: { name: 'Ada Lovelace', email: 'ada@example.com' },
      grace: { name: 'Grace Hopper', email: 'grace@example.com' },
    });
    return startTestService({
      PORT: String(port),
      AGENT_EVAL_ROLES: 'api',
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      OIDC_ADMIN_EMAILS: 'ada@example.com',
      ...idp.env(url),
    });
  },
  async after() {
    await idp?.close();
  },
});
const { svc } = suite;

describe('signing in to the dashboard', () => {
  it('signs a person in with the OpenID provider and lands on the dashboard under their name', async () => {
    const p = await open();
    await p.page.goto('/signin');
    await expect.poll(() => p.page.getByTestId('signin-oidc').textContent()).toBe('Sign in with Test IdP');
    await p.screenshot('signin-page');
    await signInWithProvider(p, 'ada');
    await expect.poll(() => p.page.getByTestId('user-name').textContent()).toBe('Ada Lovelace');
    await expect.poll(() => p.page.getByTestId('user-role').textContent()).toBe('admin');
    await p.screenshot('signin-oidc-dashboard');

    // The session is a cookie the page cannot read: HttpOnly, SameSite=Lax, Path=/.
    const cookies = await p.context.cookies(svc.apiUrl);
    const session = cookies.find((c) => c.name === 'agent-eval-session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(session.expires).toBeGreaterThan(Date.now() / 1000 + 3600);
    // The attempt's cookie is gone once used.
    expect(cookies.some((c) => c.name === 'agent-eval-oidc')).toBe(false);
    const storage = await storageOf(p);
    expect(storage).not.toContain(session.value);
    expect(storage).not.toContain('agent-eval-session');
    expect(dashboardErrors(p)).toBe('');
  });

  it('signs in with an API key: the key is sent once and kept nowhere in the browser', async () => {
    const p = await open();
    await p.page.goto('/traces');
    await p.page.waitForURL((url) => url.pathname === '/signin');
    await p.page.getByLabel('API key').fill(svc.apiKey!);
    await p.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.page.waitForURL((url) => url.pathname === '/traces');
    await expect.poll(() => p.page.getByTestId('user-name').textContent()).toContain('key ');
    const storage = await storageOf(p);
    expect(storage).not.toContain(svc.apiKey!);
    expect(storage).not.toContain(svc.apiKey!.slice(0, 16));
    const stored = JSON.parse(storage) as { local: unknown; session: unknown };
    expect(stored.local).toEqual({ 'agent-eval.project': svc.defaultProjectId });
    expect(stored.session).toEqual({});
    // A reload stays signed in: the cookie, not the page, holds the session.
    await p.page.reload();
    await expect.poll(() => p.page.getByTestId('user-name').isVisible()).toBe(true);
    await p.screenshot('signin-key-dashboard');
    expect(dashboardErrors(p)).toBe('');
  });

  it("asks who is signed in once per page load, while the app's scripts still load", async () => {
    const p = await suite.open();
    const asked: string[] = [];
    p.page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/auth/session') asked.push(r.method());
    });
    await p.page.goto('/traces');
    await expect.poll(() => p.page.getByTestId('user-name').isVisible()).toBe(true);
    expect(asked).toEqual(['GET']);
    // The page's own script asked while the app's code was still on its way, not once it had run.
    const timing = await p.page.evaluate(() => {
      const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const session = entries.find((e) => new URL(e.name).pathname === '/api/auth/session');
      const scriptsIn = Math.max(...entries.filter((e) => e.name.endsWith('.js')).map((e) => e.responseEnd));
      return { session: session?.startTime ?? null, scriptsIn };
    });
    expect(timing.session).not.toBeNull();
    expect(timing.session!).toBeLessThan(timing.scriptsIn);
    // Signed out, the sign-in page asks afresh and a sign-in works (the early answer is used once).
    await p.page.getByTestId('signout').click();
    await p.page.waitForURL((url) => url.pathname === '/signin');
    await p.page.getByLabel('API key').fill(svc.apiKey!);
    await p.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.page.waitForURL((url) => url.pathname === '/traces');
    await expect.poll(() => p.page.getByTestId('user-name').textContent()).toContain('key ');
    expect(dashboardErrors(p)).toBe('');
  });

  it('sign-out ends the session on the server: the old cookie no longer works', async () => {
    const p = await open();
    await signInWithProvider(p, 'ada');
    const cookie = (await p.context.cookies(svc.apiUrl)).find((c) => c.name === 'agent-eval-session')!;
    const call = () => fetch(`${svc.apiUrl}/api/traces`, { headers: { cookie: `${cookie.name}=${cookie.value}`, 'x-project-id': svc.defaultProjectId } });
    expect((await call()).status).toBe(200);
    await p.page.getByTestId('signout').click();
    await p.page.waitForURL((url) => url.pathname === '/signin');
    expect((await call()).status).toBe(401);
    expect((await p.context.cookies(svc.apiUrl)).some((c) => c.name === 'agent-eval-session')).toBe(false);
    // Back to the dashboard: the sign-in page again.
    await p.page.goto('/traces');
    await p.page.waitForURL((url) => url.pathname === '/signin');
    await p.screenshot('signin-after-signout');
    expect(dashboardErrors(p)).toBe('');
  });

  it('refuses a script on the page that writes without the CSRF token (403 saying why)', async () => {
    const p = await open();
    await signInWithProvider(p, 'ada');
    const answer = await p.page.evaluate(async (project) => {
      const res = await fetch('/api/feedback/comparisons', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-project-id': project },
        body: JSON.stringify({ prompt: 'p', output_a: 'a', output_b: 'b' }),
      });
      return { status: res.status, body: (await res.json()) as { code: string; details: string } };
    }, svc.defaultProjectId);
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('CSRF_REFUSED');
    expect(answer.body.details).toContain('X-CSRF-Token');
    // The refusal is the test's own doing, not the page's.
    expect(
      dashboardErrors(p)
        .split('\n---\n')
        .filter((e) => e && !e.includes('403')),
    ).toEqual([]);
  });

  it('an admin gives a person the viewer role on the Members page; the viewer sees the project but cannot write', async () => {
    // Grace signs in once (the provider knows her; this service does from then on), with no project yet.
    const g = await open();
    await signInWithProvider(g, 'grace');
    await expect.poll(() => g.page.getByTestId('no-project').isVisible()).toBe(true);
    await g.screenshot('signin-no-project');

    const a = await open();
    a.page.on('dialog', (dialog) => void dialog.accept());
    await signInWithProvider(a, 'ada');
    await a.page.goto('/settings/members');
    await a.page.getByTestId('member-email').fill('grace@example.com');
    await a.page.getByTestId('member-role').selectOption('viewer');
    await a.page.getByTestId('member-add').click();
    const row = a.page.locator('[data-testid=member-row]', { hasText: 'Grace Hopper' });
    await expect.poll(() => row.count()).toBe(1);
    await a.screenshot('signin-members');
    expect(dashboardErrors(a)).toBe('');

    await g.page.goto('/traces');
    await expect.poll(() => g.page.getByTestId('user-role').textContent()).toBe('viewer');
    await expect.poll(() => g.page.getByTestId('user-name').textContent()).toBe('Grace Hopper');
    // A viewer cannot write: the API refuses what the page would send.
    const { cookie } = await oidcSignIn(svc.apiUrl!, 'grace');
    const session = (await (await fetch(`${svc.apiUrl}/api/auth/session`, { headers: { cookie } })).json()) as { session: { csrf_token: string } };
    const write = await fetch(`${svc.apiUrl}/api/feedback/comparisons`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': session.session.csrf_token, 'content-type': 'application/json', 'x-project-id': svc.defaultProjectId },
      body: JSON.stringify({ prompt: 'p', output_a: 'a', output_b: 'b' }),
    });
    expect(write.status).toBe(403);
    // And the members page tells her she may not manage members.
    await g.page.goto('/settings/members');
    await expect.poll(() => g.page.getByTestId('members-error').textContent()).toContain('admin role');
    await g.screenshot('signin-viewer-members');
  });
});
