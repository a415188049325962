import type { AuditActorKind, AuditListQuery, AuditPage } from '../model/audit.js';

/*
 * The audit log's store (PostgreSQL, migration 013; store/postgres/audit-store.ts implements it),
 * written only through core/audit/audit-log.ts (docs/security.md, "Audit log").
 *
 * Promises:
 * - Append-only: an entry is never changed; `insert` resolves once committed, and the only
 *   removal is `prune` by age (AUDIT_RETENTION_DAYS): a deleted project's purge keeps its entries.
 * - Not idempotent: an insert retried after a lost answer records the entry twice (each gets its
 *   own id), which an audit log prefers to losing one.
 * - `list` pages newest first by a keyset cursor, stable while entries are added.
 */

/** One entry as stored (core/audit/audit-log.ts builds it; nothing in it is a secret). */
export interface AuditRow {
  actorKind: AuditActorKind;
  actorId: string;
  actorName: string | null;
  action: string;
  projectId: string | null;
  target: string | null;
  details: Record<string, unknown>;
  clientAddress: string | null;
  userAgent: string | null;
}

/** The audit log's table (migration 013): append, list newest first, prune by age. */
export interface AuditStore {
  insert(row: AuditRow): Promise<void>;
  /** `projectId` set: that project's entries only (a project admin's view); undefined: every entry. */
  list(projectId: string | undefined, q: AuditListQuery): Promise<AuditPage>;
  /** Deletes entries older than `days` days; returns how many. */
  prune(days: number): Promise<number>;
}
