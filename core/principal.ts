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
  kind: 'anonymous' | 'api_key' | 'jwt';
  /** Key id, token subject, or 'anonymous'. */
  id: string;
}

export const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous', id: 'anonymous' });
export const ALL_PERMISSIONS: ReadonlySet<Permission> = ROLE_PERMISSIONS.admin;
