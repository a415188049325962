import { z } from 'zod';
import { isUuid } from './agent.js';
import { ROLES, type Role } from '../principal.js';
import type { ProjectView } from './project.js';

/**
 * People signed in to the dashboard with OpenID Connect, and their roles per project
 * (docs/security.md, "Signing in").
 */

/** A user as the API shows them. */
export interface UserView {
  id: string;
  name: string;
  email: string | null;
  /** A server-level admin (OIDC_ADMIN_EMAILS): admin in every project. */
  server_admin: boolean;
  created_at: string;
  last_sign_in_at: string;
}

/** A user's role in a project, as GET /api/projects/{id}/members lists it. */
export interface MemberView {
  user_id: string;
  name: string;
  email: string | null;
  role: Role;
  /** Who granted the role: a user id or an API key id; null when granted at first sign-in (OIDC_DEFAULT_ROLE). */
  granted_by: string | null;
  granted_at: string;
}

/** PUT /api/projects/{id}/members/{user_id}: the role to give. */
export const SetRoleSchema = z.strictObject({ role: z.enum(ROLES) });

/**
 * POST /api/projects/{id}/members: a role for a user named by id or by email. The user must have
 * signed in once (the provider, not this service, knows who may).
 */
export const AddMemberSchema = z
  .strictObject({
    user_id: z.string().refine(isUuid, 'must be a user id').optional(),
    email: z.string().trim().toLowerCase().max(320).pipe(z.email('must be an email address')).optional(),
    role: z.enum(ROLES),
  })
  .superRefine((b, ctx) => {
    if (!b.user_id === !b.email) ctx.addIssue({ code: 'custom', path: ['user_id'], message: 'give either user_id or email' });
  });

/** The dashboard's session as GET /api/auth/session and POST /api/auth/key show it. */
export interface SessionView {
  /** `user`: a person signed in with OpenID Connect; `api_key`: an API key exchanged for the session. */
  kind: 'user' | 'api_key';
  user: { id: string; name: string; email: string | null; server_admin: boolean } | null;
  /** The key the session was opened with (never its secret). */
  key: { id: string; name: string; prefix: string; project_id: string; role: Role } | null;
  /** The projects the session reaches, with its role in each. */
  projects: Array<ProjectView & { role: Role }>;
  /** Send it as X-CSRF-Token with every state-changing request made with the session cookie. */
  csrf_token: string;
  /** The absolute end of the session. */
  expires_at: string;
  /** When it ends unless a request comes first (idle expiry, at most expires_at). */
  idle_expires_at: string;
}

/** GET /api/auth/session: how one signs in here, and the browser's session if it has one. */
export interface AuthState {
  auth_mode: 'required' | 'none';
  sign_in: { api_key: boolean; oidc: { name: string } | null };
  session: SessionView | null;
  /**
   * Where OpenTelemetry exporters send traces besides this port's /v1/traces: the OTLP receivers'
   * ports (the ones bound where this process runs the collector, else the configured ones).
   */
  ingest: { otlp_grpc_port: number | null; otlp_http_port: number | null };
}
