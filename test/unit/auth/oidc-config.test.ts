import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.js';
import { ConfigError } from '../../../core/errors.js';

/** OIDC_* and SESSION_* (docs/configuration.md, docs/security.md "Signing in"). */
const OIDC = {
  OIDC_ISSUER: 'https://idp.example.com/realms/main',
  OIDC_CLIENT_ID: 'agent-eval',
  OIDC_CLIENT_SECRET: 's3cret',
  OIDC_REDIRECT_URL: 'https://evals.example.com/api/auth/oidc/callback',
};

describe('OpenID Connect settings', () => {
  it('are off unless set, and sessions have their defaults (12 h idle, 7 days)', () => {
    const config = loadConfig({});
    expect(config.oidc).toBeUndefined();
    expect(config.sessions).toEqual({ idleMs: 720 * 60_000, maxMs: 168 * 3_600_000 });
  });

  it('read the provider, the admins (lower-case) and the default role', () => {
    const config = loadConfig({ ...OIDC, OIDC_ADMIN_EMAILS: 'Ada@Example.com, bob@example.com ,', OIDC_DEFAULT_ROLE: 'viewer', OIDC_NAME: 'Acme SSO' });
    expect(config.oidc).toEqual({
      ...{ issuer: OIDC.OIDC_ISSUER, clientId: 'agent-eval', clientSecret: 's3cret', redirectUrl: OIDC.OIDC_REDIRECT_URL },
      name: 'Acme SSO',
      scopes: 'openid email profile',
      adminEmails: ['ada@example.com', 'bob@example.com'],
      defaultRole: 'viewer',
    });
    expect(loadConfig(OIDC).oidc?.defaultRole).toBeNull();
  });

  it('refuse a partial setup, naming what is missing', () => {
    expect(() => loadConfig({ OIDC_ISSUER: OIDC.OIDC_ISSUER, OIDC_CLIENT_ID: 'x' })).toThrow(/OIDC_CLIENT_SECRET: required[\s\S]*OIDC_REDIRECT_URL: required/);
  });

  it('refuse plain http away from loopback, and a redirect URL that is not the callback route', () => {
    expect(() => loadConfig({ ...OIDC, OIDC_ISSUER: 'http://idp.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...OIDC, OIDC_REDIRECT_URL: 'http://evals.example.com/api/auth/oidc/callback' })).toThrow(/OIDC_REDIRECT_URL: must be https/);
    expect(() => loadConfig({ ...OIDC, OIDC_REDIRECT_URL: 'https://evals.example.com/callback' })).toThrow(/\/api\/auth\/oidc\/callback/);
    expect(loadConfig({ ...OIDC, OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_REDIRECT_URL: 'http://localhost:3000/api/auth/oidc/callback' }).oidc?.issuer).toBe(
      'http://127.0.0.1:9000',
    );
    expect(() => loadConfig({ ...OIDC, OIDC_SCOPES: 'email profile' })).toThrow(/must include openid/);
  });
});
