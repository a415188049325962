import { z } from 'zod';
import { ENV_PATTERN } from '../auth/api-key.js';
import { ROLES, type Role } from '../principal.js';
import { PROJECT_ID_PATTERN } from '../project-context.js';
import { pgText } from './pg-json.js';

const name = pgText(200).trim().min(1, 'is required');
const env = z.string().regex(ENV_PATTERN, 'must be 1-16 lower-case letters or digits (e.g. live, test)').default('live');

/** POST /api/projects: a project and its first key (an admin key). */
export const CreateProjectSchema = z.strictObject({
  name,
  id: z.string().regex(PROJECT_ID_PATTERN, 'must be 1-128 characters of letters, digits, ".", "_", ":" or "-"').optional(),
  key_name: name.default('first admin key'),
  env,
});

/** POST /api/projects/{id}/keys; `server_admin: true` only from a server admin. */
export const CreateKeySchema = z.strictObject({
  name,
  role: z.enum(ROLES).default('member'),
  env,
  server_admin: z.boolean().default(false),
});

const perMinute = z.number().int().min(1).max(100_000_000).nullable().optional();
/** PUT /api/projects/{id}/rate-limits: requests per minute per group; null restores the default. */
export const RateLimitsSchema = z.strictObject({ ingest: perMinute, query: perMinute, eval_runs: perMinute });

/** A key as listed: never its secret. */
export interface ApiKeyView {
  id: string;
  project_id: string;
  name: string;
  role: Role;
  prefix: string;
  /** A server-admin key (docs/security.md, "Server admins"). */
  server_admin: boolean;
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ProjectView {
  id: string;
  name: string;
  is_default: boolean;
  created_at: string;
  /** When a server admin archived it (read-only since); null for a live project. */
  archived_at: string | null;
}

/** A project's life: live, archived (read-only), its deletion under way, deleted (only its id is kept). */
export type ProjectStatus = 'active' | 'archived' | 'deleting' | 'deleted';

/** A project as GET /api/admin/projects lists it for server admins. */
export interface AdminProjectView extends ProjectView {
  status: ProjectStatus;
  deleted_at: string | null;
  purged_at: string | null;
}
