import type { ConfigEnv } from '../config.js';
import { ConfigError } from '../errors.js';

/** Sign-in with OpenID Connect: its settings (OIDC_*, docs/security.md, "Signing in"), checked at start. */

/** OIDC_*: the provider, and who among its users gets what here. */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  name: string;
  scopes: string;
  /** Verified emails of server admins, lower-case. */
  adminEmails: readonly string[];
  /** The role a user gets in the default project at their first sign-in; null: none (a project admin grants one). */
  defaultRole: 'viewer' | 'member' | 'admin' | null;
}

/** The path of the OIDC callback route (api/routes/auth.ts), which OIDC_REDIRECT_URL must name. */
export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';

/** Plain http to this machine (`localhost`, 127.0.0.0/8, [::1]): a provider or a dashboard on loopback. */
export function isLoopbackHttpUrl(url: URL): boolean {
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname));
}

/**
 * OIDC_*: all four of issuer, client id, client secret and redirect URL, or none. Plain http only
 * to this machine (a provider or a dashboard on loopback); the redirect URL is this service's
 * callback route.
 */
export function oidcConfig(e: ConfigEnv): OidcConfig | undefined {
  const required = {
    OIDC_ISSUER: e.OIDC_ISSUER,
    OIDC_CLIENT_ID: e.OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET: e.OIDC_CLIENT_SECRET,
    OIDC_REDIRECT_URL: e.OIDC_REDIRECT_URL,
  };
  const missing = Object.entries(required)
    .filter(([, v]) => v === undefined)
    .map(([k]) => k);
  if (missing.length === 4) return undefined;
  const problems = missing.map((k) => `  ${k}: required when any OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET or OIDC_REDIRECT_URL is set`);
  if (e.OIDC_ISSUER && !e.OIDC_ISSUER.startsWith('https:') && !isLoopbackHttpUrl(new URL(e.OIDC_ISSUER)))
    problems.push('  OIDC_ISSUER: must be https (plain http only for a provider on loopback)');
  if (e.OIDC_REDIRECT_URL) {
    const redirect = new URL(e.OIDC_REDIRECT_URL);
    if (redirect.pathname !== OIDC_CALLBACK_PATH)
      problems.push(`  OIDC_REDIRECT_URL: must be this service's ${OIDC_CALLBACK_PATH} (e.g. https://evals.example.com${OIDC_CALLBACK_PATH})`);
    if (redirect.protocol !== 'https:' && !isLoopbackHttpUrl(redirect)) problems.push('  OIDC_REDIRECT_URL: must be https (plain http only on loopback)');
  }
  if (problems.length) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return {
    issuer: e.OIDC_ISSUER!,
    clientId: e.OIDC_CLIENT_ID!,
    clientSecret: e.OIDC_CLIENT_SECRET!,
    redirectUrl: e.OIDC_REDIRECT_URL!,
    name: e.OIDC_NAME,
    scopes: e.OIDC_SCOPES,
    adminEmails: e.OIDC_ADMIN_EMAILS,
    defaultRole: e.OIDC_DEFAULT_ROLE === 'none' ? null : e.OIDC_DEFAULT_ROLE,
  };
}
