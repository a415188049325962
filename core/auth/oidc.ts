import * as client from 'openid-client';
import { isLoopbackHttpUrl, type OidcConfig } from './oidc-settings.js';

/**
 * Sign-in with any OpenID Connect provider (docs/security.md, "Signing in"): the authorization
 * code flow with PKCE (S256), state and nonce, through openid-client. This module knows the
 * provider; who may do what afterwards is decided elsewhere (users, roles, sessions).
 *
 * The provider and this client (OIDC_*, core/config.ts):
 */
export type OidcSettings = Pick<OidcConfig, 'issuer' | 'clientId' | 'clientSecret' | 'redirectUrl' | 'name' | 'scopes'>;

/** What the callback must check, kept in the browser (an HttpOnly cookie) between the two legs. */
export interface OidcAttempt {
  state: string;
  nonce: string;
  verifier: string;
}

/** The person the provider signed in. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  /** `name`, else `preferred_username`, else the email, else the subject. */
  name: string;
  email: string | null;
  emailVerified: boolean;
}

/** Why a sign-in failed, in words the sign-in page shows (`reason` travels in its URL). */
export class OidcError extends Error {
  constructor(
    readonly reason: 'denied' | 'expired' | 'failed' | 'unavailable',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface OidcClient {
  readonly name: string;
  /** The provider's authorization URL for a new attempt, and the attempt to keep for the callback. */
  begin(): Promise<{ url: string; attempt: OidcAttempt }>;
  /** Redeems the callback's code (its query string) for the attempt; the identity, or an OidcError. */
  finish(callbackQuery: string, attempt: OidcAttempt): Promise<OidcIdentity>;
}

/** Whether the identity is a server admin: its email verified by the provider and listed. */
export function isAdminIdentity(identity: OidcIdentity, adminEmails: readonly string[]): boolean {
  return identity.email !== null && identity.emailVerified && adminEmails.includes(identity.email.toLowerCase());
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : undefined;
}

/** The identity from the ID token's claims merged with the UserInfo answer (which may hold name and email). */
export function identityOf(issuer: string, claims: Record<string, unknown>): OidcIdentity {
  const subject = text(claims.sub)!;
  const email = text(claims.email)?.toLowerCase() ?? null;
  return {
    issuer,
    subject,
    name: text(claims.name) ?? text(claims.preferred_username) ?? email ?? subject,
    email,
    emailVerified: claims.email_verified === true,
  };
}

export function createOidcClient(settings: OidcSettings, timeoutSeconds = 10): OidcClient {
  const issuerUrl = new URL(settings.issuer);
  // http only for a provider on this machine (config refuses any other http issuer).
  const execute = isLoopbackHttpUrl(issuerUrl) ? [client.allowInsecureRequests] : [];
  let discovered: Promise<client.Configuration> | undefined;

  /** The provider's metadata, read once; a failed read is tried again at the next sign-in. */
  function configuration(): Promise<client.Configuration> {
    discovered ??= client
      .discovery(issuerUrl, settings.clientId, undefined, client.ClientSecretBasic(settings.clientSecret), { execute, timeout: timeoutSeconds })
      .catch((err: unknown) => {
        discovered = undefined;
        throw new OidcError('unavailable', `the OpenID provider ${settings.issuer} did not answer its discovery document`, { cause: err });
      });
    return discovered;
  }

  return {
    name: settings.name,

    async begin() {
      const config = await configuration();
      const attempt: OidcAttempt = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUrl,
        scope: settings.scopes,
        state: attempt.state,
        nonce: attempt.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(attempt.verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, attempt };
    },

    async finish(callbackQuery, attempt) {
      const config = await configuration();
      const params = new URLSearchParams(callbackQuery);
      const providerError = params.get('error');
      if (providerError)
        throw new OidcError(
          'denied',
          `the provider refused the sign-in: ${providerError}${params.get('error_description') ? ` (${params.get('error_description')!.slice(0, 200)})` : ''}`,
        );
      if (params.get('state') !== attempt.state) throw new OidcError('expired', 'the sign-in attempt does not match this browser (state): start again');
      // The callback URL as the provider was told it (OIDC_REDIRECT_URL), with the answer's parameters.
      const current = new URL(settings.redirectUrl);
      current.search = params.toString();
      let claims: Record<string, unknown>;
      try {
        const tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: attempt.verifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        });
        claims = { ...tokens.claims() };
        if (config.serverMetadata().userinfo_endpoint) {
          Object.assign(claims, await client.fetchUserInfo(config, tokens.access_token, String(claims.sub)));
        }
      } catch (err) {
        throw new OidcError('failed', `the provider's answer could not be used: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      return identityOf(config.serverMetadata().issuer, claims);
    },
  };
}
