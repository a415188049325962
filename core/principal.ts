/**
 * Who is calling and what they may do: set once per request, read by every route. Today every
 * caller is anonymous with every permission (no credentials exist yet); API keys and JWTs will
 * produce their own principals with the permissions of their role.
 */
export const PERMISSIONS = ['traces:write', 'traces:read', 'scores:write', 'evals:run', 'prompts:write', 'projects:admin'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface Principal {
  kind: 'anonymous' | 'api_key' | 'jwt';
  /** Key id, token subject, or 'anonymous'. */
  id: string;
}

export const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous', id: 'anonymous' });
export const ALL_PERMISSIONS: ReadonlySet<Permission> = new Set(PERMISSIONS);
