import type { z } from 'zod';
import type { AuditPage } from '../core/model/audit.js';
import type { AdminProjectView, ApiKeyView, CreateKeySchema, CreateProjectSchema, ProjectView, RateLimitsSchema } from '../core/model/project.js';
import type { AddMemberSchema, AuthState, MemberView, SessionView, SetRoleSchema } from '../core/model/user.js';
import type { RateLimitsView } from './api-types.js';
import { enc, type EndpointCalls } from './endpoint-calls.js';

/*
 * The endpoint groups of projects, their keys, members and limits, the audit log and sign-in
 * (docs/security.md): parts of {@link AgentEvalApi}, over its calls.
 */

export const projectEndpoints = (c: EndpointCalls) => ({
  list: () => c.get<{ projects: ProjectView[] }>('/api/projects'),
  get: (id: string) => c.get<ProjectView & { rate_limits: RateLimitsView }>(`/api/projects/${enc(id)}`),
  /** POST /api/projects (a server admin's): the project and its first admin key (`api_key.key`, shown once). */
  create: (body: z.input<typeof CreateProjectSchema>) => c.post<ProjectView & { api_key: ApiKeyView & { key: string } }>('/api/projects', body),
});

/** Every project, for server admins (docs/security.md, "Server admins and project governance"). */
export const adminProjectEndpoints = (c: EndpointCalls) => ({
  list: () => c.get<{ projects: AdminProjectView[] }>('/api/admin/projects'),
  /** Read-only from now: reads work, writes are refused (403 PROJECT_ARCHIVED). */
  archive: (id: string) => c.post<AdminProjectView>(`/api/admin/projects/${enc(id)}/archive`),
  unarchive: (id: string) => c.post<AdminProjectView>(`/api/admin/projects/${enc(id)}/unarchive`),
  /** An archived project: its keys stop at once (status `deleting`), its data leaves both stores in the background (then `deleted`). */
  delete: (id: string) => c.request<AdminProjectView>('DELETE', `/api/admin/projects/${enc(id)}`),
});

/** GET /api/audit: newest first; a server admin reads every entry, a project admin their project's (docs/security.md, "Audit log"). */
export const auditEndpoints = (c: EndpointCalls) => ({
  list: (
    params: { action?: string; actor?: string; project?: string; since?: string | number; until?: string | number; limit?: number; cursor?: string } = {},
  ) => c.get<AuditPage>('/api/audit', params),
});

/** API keys of a project (the client's project when `projectId` is absent). */
export const keyEndpoints = (c: EndpointCalls) => ({
  list: async (projectId?: string) => c.get<{ keys: ApiKeyView[] }>(`/api/projects/${enc(await c.projectId(projectId))}/keys`),
  /** The new key's secret is in `key`, shown this once. */
  create: async (body: z.input<typeof CreateKeySchema>, projectId?: string) =>
    c.post<ApiKeyView & { key: string }>(`/api/projects/${enc(await c.projectId(projectId))}/keys`, body),
  revoke: async (keyId: string, projectId?: string) => c.del(`/api/projects/${enc(await c.projectId(projectId))}/keys/${enc(keyId)}`),
});

/** People's roles in a project (docs/security.md, "Signing in"); the client's project when `projectId` is absent. */
export const memberEndpoints = (c: EndpointCalls) => ({
  list: async (projectId?: string) => c.get<{ members: MemberView[] }>(`/api/projects/${enc(await c.projectId(projectId))}/members`),
  /** A role for a person named by `user_id` or `email` (they must have signed in once). */
  add: async (body: z.input<typeof AddMemberSchema>, projectId?: string) =>
    c.post<MemberView>(`/api/projects/${enc(await c.projectId(projectId))}/members`, body),
  setRole: async (userId: string, body: z.input<typeof SetRoleSchema>, projectId?: string) =>
    c.put<MemberView>(`/api/projects/${enc(await c.projectId(projectId))}/members/${enc(userId)}`, body),
  remove: async (userId: string, projectId?: string) => c.del(`/api/projects/${enc(await c.projectId(projectId))}/members/${enc(userId)}`),
});

/** The dashboard's sign-in (docs/security.md, "Signing in"): the session a browser's cookie carries. */
export const authEndpoints = (c: EndpointCalls) => ({
  /** GET /api/auth/session (no credentials needed): how one signs in here, and the caller's session. */
  state: () => c.get<AuthState>('/api/auth/session'),
  /** POST /api/auth/key: an API key exchanged for a session (the cookie is set by the answer). */
  signInWithKey: (key: string) => c.post<SessionView>('/api/auth/key', { key }),
  signOut: () => c.post<void>('/api/auth/sign-out'),
});

export const rateLimitEndpoints = (c: EndpointCalls) => ({
  get: async (projectId?: string) => c.get<RateLimitsView>(`/api/projects/${enc(await c.projectId(projectId))}/rate-limits`),
  /** Requests per minute per group; null restores the default. */
  set: async (limits: z.input<typeof RateLimitsSchema>, projectId?: string) =>
    c.put<RateLimitsView>(`/api/projects/${enc(await c.projectId(projectId))}/rate-limits`, limits),
});
