import { z } from 'zod';
import { Time } from './answer-fields.js';
import { ROLES } from '../principal.js';

/**
 * What the projects, keys, members, rate limits and auth endpoints answer, as zod schemas: see
 * core/model/answers.ts (how they are used). Each mirrors the TypeScript type named in its comment.
 */

const Role = z.enum(ROLES);

/** ProjectView (core/model/project.ts). */
export const ProjectSchema = z
  .object({ id: z.string(), name: z.string(), is_default: z.boolean(), created_at: Time, archived_at: Time.nullable() })
  .meta({ id: 'Project' });

/** ApiKeyView (core/model/project.ts): never its secret. */
export const ApiKeySchema = z
  .object({
    id: z.string(),
    project_id: z.string(),
    name: z.string(),
    role: Role,
    prefix: z.string(),
    server_admin: z.boolean(),
    created_by: z.string().nullable(),
    created_at: Time,
    last_used_at: Time.nullable(),
    revoked_at: Time.nullable(),
  })
  .meta({ id: 'ApiKey' });

/** A key just created: its secret `key`, shown this once. */
export const CreatedApiKeySchema = ApiKeySchema.extend({ key: z.string().describe('The secret: shown once, never stored') });

/** POST /api/projects: the project and its first admin key. */
export const CreatedProjectSchema = ProjectSchema.extend({ api_key: CreatedApiKeySchema });

/** A project's rate limits per minute (api/routes/projects.ts limitsView). */
export const RateLimitsAnswerSchema = z.object({ ingest: z.number().int(), query: z.number().int(), eval_runs: z.number().int(), window: z.string() });

/** GET /api/projects/{id}: the project with its rate limits. */
export const ProjectDetailSchema = ProjectSchema.extend({ rate_limits: RateLimitsAnswerSchema });

export const ProjectListSchema = z.object({ projects: z.array(ProjectSchema) });
export const ApiKeyListSchema = z.object({ keys: z.array(ApiKeySchema) });

/** MemberView (core/model/user.ts). */
export const MemberSchema = z
  .object({
    user_id: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    role: Role,
    granted_by: z.string().nullable(),
    granted_at: Time,
  })
  .meta({ id: 'Member' });

export const MemberListSchema = z.object({ members: z.array(MemberSchema) });

/** SessionView (core/model/user.ts): the dashboard's signed-in session. */
export const SessionViewSchema = z
  .object({
    kind: z.enum(['user', 'api_key']),
    user: z.object({ id: z.string(), name: z.string(), email: z.string().nullable(), server_admin: z.boolean() }).nullable(),
    key: z.object({ id: z.string(), name: z.string(), prefix: z.string(), project_id: z.string(), role: Role }).nullable(),
    projects: z.array(ProjectSchema.extend({ role: Role })),
    csrf_token: z.string(),
    expires_at: Time,
    idle_expires_at: Time,
  })
  .meta({ id: 'Session' });

/** AuthState (core/model/user.ts): GET /api/auth/session. */
export const AuthStateSchema = z.object({
  auth_mode: z.enum(['required', 'none']),
  sign_in: z.object({ api_key: z.boolean(), oidc: z.object({ name: z.string() }).nullable() }),
  session: SessionViewSchema.nullable(),
  ingest: z.object({ otlp_grpc_port: z.number().int().nullable(), otlp_http_port: z.number().int().nullable() }),
});

/** AdminProjectView (core/model/project.ts): GET /api/admin/projects and a project's archive, restore or deletion. */
export const AdminProjectSchema = ProjectSchema.extend({
  status: z.enum(['active', 'archived', 'deleting', 'deleted']),
  deleted_at: Time.nullable(),
  purged_at: Time.nullable(),
}).meta({ id: 'AdminProject' });

export const AdminProjectListSchema = z.object({ projects: z.array(AdminProjectSchema) });

/** AuditPage (core/model/audit.ts): GET /api/audit, newest first. */
export const AuditPageSchema = z.object({
  entries: z.array(
    z.object({
      id: z.string(),
      at: Time,
      actor: z.object({ kind: z.enum(['api_key', 'jwt', 'user', 'anonymous', 'system']), id: z.string(), name: z.string().nullable() }),
      action: z.string(),
      project_id: z.string().nullable(),
      target: z.string().nullable(),
      details: z.record(z.string(), z.unknown()),
      client_address: z.string().nullable(),
      user_agent: z.string().nullable(),
    }),
  ),
  limit: z.number().int(),
  next_cursor: z.string().nullable(),
});

/** DataDeletionView (core/model/data-deletion.ts): a deletion request and how far it got. */
export const DataDeletionSchema = z
  .object({
    id: z.string(),
    project_id: z.string(),
    kind: z.enum(['trace', 'user', 'session']),
    target: z.string(),
    status: z.enum(['pending', 'running', 'completed']),
    requested_by: z.object({ id: z.string(), name: z.string().nullable() }),
    attempts: z.number().int(),
    last_error: z.string().nullable(),
    traces_deleted: z.number().int().nullable(),
    rows_deleted: z.record(z.string(), z.record(z.string(), z.number())).nullable(),
    created_at: Time,
    completed_at: Time.nullable(),
  })
  .meta({ id: 'DataDeletion' });

/** RecomputeResult (core/model/cost.ts): POST /api/admin/recompute-costs. */
export const RecomputeResultSchema = z.object({
  version: z.string(),
  from: Time,
  to: Time,
  spans_examined: z.number().int(),
  spans_rewritten: z.number().int(),
  spans_changed: z.number().int(),
  spans_unpriced: z.number().int(),
  traces_updated: z.number().int(),
  unpriced_models: z.array(z.string()),
});

/** GET /api/admin/prices: the price table in use (core/cost/price-table.ts ModelPrice, USD per million tokens). */
export const PriceTableSchema = z.object({
  version: z.string(),
  currency: z.literal('USD'),
  unit: z.string(),
  models: z.array(z.object({ provider: z.string(), model: z.string(), input: z.number(), output: z.number(), cached_input: z.number().nullable() })),
});
