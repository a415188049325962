import { z } from 'zod';
import { keysetCursorParam } from './keyset-cursor.js';
import { pgText } from './pg-json.js';
import { Timestamp } from './ingest-body.js';

/**
 * The audit log's entries as the API shows them (GET /api/audit; docs/security.md "Audit log").
 * The actions are dotted names, `<what>.<happened>`; AUDIT_ACTIONS lists the ones the service
 * records (a filter accepts any name of that shape, so an action added later is found too).
 */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.revoked',
  'role.changed',
  'member.added',
  'member.removed',
  'rate_limits.changed',
  'project.created',
  'project.archived',
  'project.unarchived',
  'project.deleted',
  'project.purged',
  'agent.created',
  'agent.endpoint_changed',
  'agent.deleted',
  'scorer.created',
  'scorer.deleted',
  'alert_webhook.changed',
  'data.deleted',
  'data.exported',
  'auth.throttled',
  'user.signed_in',
  'user.signed_out',
  'session.ended',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who did it: a key, a token's subject, a signed-in person, the service itself (`system`), or anyone (`AUTH_MODE=none`). */
export type AuditActorKind = 'api_key' | 'jwt' | 'user' | 'anonymous' | 'system';

export interface AuditEntryView {
  id: string;
  at: string;
  actor: { kind: AuditActorKind; id: string; name: string | null };
  action: string;
  /** The project the action concerns; null for the server's own (a sign-in, a throttled address). */
  project_id: string | null;
  /** What it was done to: a key id, an agent id, a project id... */
  target: string | null;
  details: Record<string, unknown>;
  client_address: string | null;
  user_agent: string | null;
}

export interface AuditPage {
  entries: AuditEntryView[];
  limit: number;
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** A time in a query string: ISO 8601 or epoch milliseconds (digits), as epoch milliseconds. */
const QueryTime = z.preprocess((v) => (typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v), Timestamp);

/**
 * `?action=&actor=&project=&since=&until=&limit=&cursor=` of GET /api/audit, newest first.
 * `project` narrows a server admin's view (the `project_id` query parameter names the caller's
 * project, as on every route).
 */
export const AuditListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  action: z
    .string()
    .regex(/^[a-z_]{1,64}(\.[a-z_]{1,64})?$/, 'must be an action name such as key.created, or a group such as key')
    .optional(),
  actor: pgText(256).min(1).optional(),
  project: pgText(128).min(1).optional(),
  /** At or after. */
  since: QueryTime.optional(),
  /** Before. */
  until: QueryTime.optional(),
  cursor: keysetCursorParam('next_cursor'),
});
export type AuditListQuery = z.output<typeof AuditListQuerySchema>;
