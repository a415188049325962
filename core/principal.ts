/**
 * Who is calling and what they may do: set once per request by authentication, read by every
 * route. A role is a named set of permissions (docs/security.md has the table).
 */
export const PERMISSIONS = [
  'traces:read',
  'traces:write',
  'evals:read',
  'evals:write',
  'evals:run',
  'prompts:read',
  'prompts:write',
  'feedback:read',
  'feedback:write',
  'alerts:read',
  'alerts:write',
  'projects:admin',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** admin: everything; member: everything but managing projects and keys; viewer: reads only. */
export const ROLE_PERMISSIONS: Readonly<Record<Role, ReadonlySet<Permission>>> = Object.freeze({
  admin: new Set(PERMISSIONS),
  member: new Set(PERMISSIONS.filter((p) => p !== 'projects:admin')),
  viewer: new Set(PERMISSIONS.filter((p) => p.endsWith(':read'))),
});

export interface Principal {
  /** `user`: a person signed in to the dashboard (OpenID Connect), through a session cookie. */
  kind: 'anonymous' | 'api_key' | 'jwt' | 'user';
  /** Key id, token subject, user id, or 'anonymous'. */
  id: string;
  /** A signed-in person's display name (the provider's `name`, else their email); a token's `name` claim; absent for keys. */
  name?: string;
  /** An API key's name (a label, not a person's): what audit entries show beside the key's id. */
  keyName?: string;
  /**
   * A server admin governs the server (docs/security.md, "Server admins and project governance"):
   * creates, lists, archives and deletes projects, reads the whole audit log, creates server-admin
   * keys. Set for server-admin keys (the bootstrap key), tokens with `server_admin: true`,
   * OIDC users made server admins, and everyone under AUTH_MODE=none. It widens no `reach` by itself.
   */
  serverAdmin?: boolean;
}

/** Who did something, as records keep it: an id, and a person's name when a signed-in user did it. */
export interface Actor {
  id: string;
  name: string | null;
}

export function actorOf(p: Principal): Actor {
  return { id: p.id, name: p.name ?? null };
}

export const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous', id: 'anonymous', serverAdmin: true });
export const ALL_PERMISSIONS: ReadonlySet<Permission> = ROLE_PERMISSIONS.admin;
