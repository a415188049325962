import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

/**
 * A real OpenID Connect provider on loopback for the sign-in tests: `oidc-provider` (the certified
 * implementation openid-client is tested against) with its development login form, which signs
 * in whatever login is typed (any password). Logins of `accounts` get their name and email;
 * consent is given at once (a first-party client), so signing in is: type a login, submit.
 */
export interface TestAccount {
  name: string;
  email: string;
  /** Default true: the provider vouches for the email (OIDC_ADMIN_EMAILS needs it). */
  emailVerified?: boolean;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The service's settings for this provider, given the service's own base URL. */
  env(serviceUrl: string): Record<string, string>;
  close(): Promise<void>;
}

export const TEST_CLIENT_ID = 'agent-eval-dashboard';
export const TEST_CLIENT_SECRET = 'test-client-secret-0123456789-abcdefghij';

/**
 * Starts the provider for a service to be reached at `serviceUrl` (its redirect URL is registered
 * exactly, as real providers require): choose the service's port first (core/os freePort), start
 * the provider, then the service with `env(serviceUrl)` and that PORT.
 */
export async function startOidcProvider(serviceUrl: string, accounts: Record<string, TestAccount>): Promise<TestOidcProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirectUri = `${serviceUrl}/api/auth/oidc/callback`;
  const configuration: Configuration = {
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
    // Lifetimes of its own artifacts (the defaults work, with a notice each).
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    findAccount(_ctx, sub) {
      const account = accounts[sub];
      return Promise.resolve({
        accountId: sub,
        claims: () => Promise.resolve(account ? { sub, name: account.name, email: account.email, email_verified: account.emailVerified ?? true } : { sub }),
      });
    },
    // A first-party client: the grant is given without a consent page.
    async loadExistingGrant(ctx) {
      const session = ctx.oidc.session;
      const client = ctx.oidc.client;
      if (!session?.accountId || !client) return undefined;
      const grantId = session.grantIdFor(client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      session.grantIdFor(client.clientId, grant.jti);
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  const handle = provider.callback();
  server.on('request', (req, res) => void handle(req, res));
  return {
    issuer,
    clientId: TEST_CLIENT_ID,
    clientSecret: TEST_CLIENT_SECRET,
    env: (url) => ({
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: TEST_CLIENT_ID,
      OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
      OIDC_REDIRECT_URL: `${url}/api/auth/oidc/callback`,
      OIDC_NAME: 'Test IdP',
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies by host, as a browser keeps them (enough for these flows: no path or expiry rules but Max-Age=0). */
class CookieJar {
  private readonly byHost = new Map<string, Map<string, string>>();

  store(url: string, res: Response): void {
    const host = new URL(url).host;
    const jar = this.byHost.get(host) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || pair.slice(eq + 1).trim() === '') jar.delete(name);
      else jar.set(name, pair.slice(eq + 1).trim());
    }
    this.byHost.set(host, jar);
  }

  header(url: string): string {
    return [...(this.byHost.get(new URL(url).host) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  get(url: string, name: string): string | undefined {
    return this.byHost.get(new URL(url).host)?.get(name);
  }
}

/** The inputs of the first form of an HTML page, and where it posts. */
function firstForm(html: string, base: string): { action: string; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) throw new Error(`no form on the provider's page:\n${html.slice(0, 500)}`);
  const fields: Record<string, string> = {};
  for (const input of form[2].matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    if (name) fields[name] = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
  }
  return { action: new URL(form[1], base).href, fields };
}

/**
 * Signs `login` in through the whole authorization code flow, as a browser would but with fetch:
 * the service's /api/auth/oidc/start, the provider's login form, back to the callback. Returns
 * the session cookie (`name=value`) and where the service sent the browser at the end.
 */
export async function oidcSignIn(serviceUrl: string, login: string, next = '/traces'): Promise<{ cookie: string; location: string; jar: CookieJar }> {
  const jar = new CookieJar();
  let url = `${serviceUrl}/api/auth/oidc/start?next=${encodeURIComponent(next)}`;
  let init: RequestInit = {};
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header(url) } });
    jar.store(url, res);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const target = new URL(location, url).href;
      if (new URL(target).origin === new URL(serviceUrl).origin && !target.includes('/api/auth/')) {
        const session = jar.get(serviceUrl, 'agent-eval-session');
        if (!session) throw new Error(`the service sent the browser to ${target} without a session cookie`);
        return { cookie: `agent-eval-session=${session}`, location: target, jar };
      }
      url = target;
      init = {};
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${html.slice(0, 500)}`);
    // The provider's login form: any login, any password.
    const form = firstForm(html, url);
    const body = new URLSearchParams({ ...form.fields, login, password: 'any' });
    url = form.action;
    init = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('the sign-in took more than 20 requests');
}
