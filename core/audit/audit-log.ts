/**
 * The audit log (docs/security.md, "Audit log"): who did what, when, from where, to which
 * project. One call records an entry; every security-relevant action makes it once it succeeded:
 *
 * ```ts
 * await deps.audit.record({
 *   actor: { kind: 'user', id: user.id, name: user.name },   // or auditActor(principal)
 *   action: 'user.signed_in',                                 // AUDIT_ACTIONS (core/model/audit.ts)
 *   projectId: null,                                          // null: the server's own
 *   target: user.id,                                          // what it was done to
 *   details: { issuer },                                      // never a secret (see below)
 *   client: { address, userAgent },                           // clientAddress() of core/auth/client-address.ts
 * });
 * ```
 *
 * In an API route, `auditFrom(ctx)` (api/audit-context.ts) fills actor and client from the
 * request: `await deps.audit.record({ ...auditFrom(ctx), action, projectId, target, details })`.
 *
 * - **After the action, never losing it silently.** `record` is called once the action is done
 *   and never throws: the action stands either way. When PostgreSQL refuses the entry, the whole
 *   entry is written to the service's log at `error` ("audit entry not stored"), so an operator's
 *   log pipeline still holds it. (One transaction with every action would thread a transaction
 *   through every store; an action and its entry fail together in practice, as both need
 *   PostgreSQL.)
 * - **No secrets.** Callers pass no secret (a URL is recorded as `urlForAudit`: its origin and a
 *   fingerprint, never its path or query; headers by name only); `record` also replaces any
 *   detail named like a secret (`secret`, `password`, `token`, `authorization`, `cookie`, `key`,
 *   `api_key`, `headers`) and any string shaped like an API key or a JWT with `[redacted]`.
 * - **Retention**: `prune(days)` drops entries older than AUDIT_RETENTION_DAYS (runtime/service.ts
 *   calls it hourly in API processes).
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { AuditAction, AuditActorKind, AuditListQuery, AuditPage } from '../model/audit.js';
import type { Principal } from '../principal.js';
import type { AuditStore } from '../store/audit.js';

export interface AuditActor {
  kind: AuditActorKind;
  /** A key id, a token's subject, a user id; `system` for the service itself. */
  id: string;
  /** A key's name, a person's name; null when there is none. */
  name?: string | null;
}

export interface AuditClient {
  /** The client's address as core/auth/client-address.ts reads it (behind TRUST_PROXY_HOPS proxies). */
  address?: string | null;
  userAgent?: string | null;
}

export interface AuditEntry {
  actor: AuditActor;
  action: AuditAction;
  /** The project the action concerns; null or absent for the server's own (a sign-in). */
  projectId?: string | null;
  target?: string | null;
  details?: Record<string, unknown>;
  client?: AuditClient;
}

export interface AuditLog {
  /** Stores one entry; never throws (see the file's comment). */
  record(entry: AuditEntry): Promise<void>;
  /** Newest first; `projectId` set: that project's entries only, undefined: all. */
  list(projectId: string | undefined, q: AuditListQuery): Promise<AuditPage>;
  /** Drops entries older than `days`; 0 keeps everything. */
  prune(days: number): Promise<number>;
}

/** The service itself (a deletion finishing in the background). */
export const SYSTEM_ACTOR: AuditActor = Object.freeze({ kind: 'system', id: 'system', name: 'agent-eval' });

/** The actor of an authenticated principal. */
export function auditActor(p: Principal): AuditActor {
  return { kind: p.kind, id: p.id, name: p.name ?? p.keyName ?? null };
}

/**
 * A URL as the audit log keeps it: its origin (scheme, host, port) and a fingerprint of the
 * whole URL (SHA-256, 16 hex digits), so a change shows and a known URL can be matched, while
 * a path or query that is itself a secret (a Slack incoming webhook) is never stored.
 */
export function urlForAudit(url: string | null | undefined): { origin: string; fingerprint: string } | null {
  if (!url) return null;
  let origin = 'unreadable';
  try {
    origin = new URL(url).origin;
  } catch {
    // Kept as a fingerprint only.
  }
  return { origin, fingerprint: createHash('sha256').update(url).digest('hex').slice(0, 16) };
}

const SECRET_NAME = /secret|password|passwd|token|authorization|cookie|^key$|api[_-]?key$|^headers?$/i;
const SECRET_VALUE = /ae_[a-z0-9]{1,16}_[A-Za-z0-9]{32}|eyJ[\w-]*\.[\w-]+\.[\w-]*/;
const REDACTED = '[redacted]';
const MAX_TEXT = 1000;
const MAX_DEPTH = 8;

/** Text PostgreSQL can store: well-formed, no control characters, bounded. */
function cleanText(text: string, max = MAX_TEXT): string {
  return text
    .toWellFormed()
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .slice(0, max);
}

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : cleanText(value);
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => cleanValue(v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>).slice(0, 100)) {
      out[cleanText(k, 100)] = SECRET_NAME.test(k) ? REDACTED : cleanValue(v, depth + 1);
    }
    return out;
  }
  return null;
}

const orNull = (text: string | null | undefined, max: number): string | null => (text ? cleanText(text, max) : null);

export function createAuditLog(store: AuditStore, logger: Logger): AuditLog {
  return {
    async record(entry) {
      const row = {
        actorKind: entry.actor.kind,
        actorId: cleanText(entry.actor.id, 256),
        actorName: orNull(entry.actor.name, 256),
        action: entry.action,
        projectId: entry.projectId ?? null,
        target: orNull(entry.target, 256),
        details: (cleanValue(entry.details ?? {}, 0) ?? {}) as Record<string, unknown>,
        clientAddress: orNull(entry.client?.address, 64),
        userAgent: orNull(entry.client?.userAgent, 512),
      };
      try {
        await store.insert(row);
      } catch (err) {
        // The action is done; its record must not vanish: the log keeps it.
        logger.error({ err, audit: row }, `audit entry not stored: ${row.action} by ${row.actorKind} ${row.actorId}`);
      }
    },
    list: (projectId, q) => store.list(projectId, q),
    prune: (days) => (days > 0 ? store.prune(days) : Promise.resolve(0)),
  };
}
