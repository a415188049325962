import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { AuditRow, AuditStore } from '../audit.js';
import type { AuditActorKind, AuditEntryView } from '../../model/audit.js';
import { encodeKeysetCursor } from '../../model/keyset-cursor.js';

export type { AuditRow, AuditStore };

/** An entry's row: the view's fields, its time a Date, its actor in three columns. */
type Row = Omit<AuditEntryView, 'at' | 'actor'> & { at: Date; actor_kind: AuditActorKind; actor_id: string; actor_name: string | null };

const COLUMNS = 'id, at, actor_kind, actor_id, actor_name, action, project_id, target, details, client_address, user_agent';

function toView(r: Row): AuditEntryView {
  return {
    id: r.id,
    at: r.at.toISOString(),
    actor: { kind: r.actor_kind, id: r.actor_id, name: r.actor_name },
    action: r.action,
    project_id: r.project_id,
    target: r.target,
    details: r.details,
    client_address: r.client_address,
    user_agent: r.user_agent,
  };
}

export function createAuditStore(pool: pg.Pool): AuditStore {
  return {
    async insert(row) {
      await pool.query(
        `INSERT INTO audit_log (id, actor_kind, actor_id, actor_name, action, project_id, target, details, client_address, user_agent)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          randomUUID(),
          row.actorKind,
          row.actorId,
          row.actorName,
          row.action,
          row.projectId,
          row.target,
          JSON.stringify(row.details),
          row.clientAddress,
          row.userAgent,
        ],
      );
    },

    async list(projectId, q) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: (n: string) => string, value: unknown) => {
        params.push(value);
        where.push(sql(`$${params.length}`));
      };
      if (projectId !== undefined) add((n) => `project_id = ${n}`, projectId);
      if (q.project !== undefined) add((n) => `project_id = ${n}`, q.project);
      // `key` finds key.created and key.revoked; `key.created` only itself.
      if (q.action !== undefined) add((n) => (q.action!.includes('.') ? `action = ${n}` : `split_part(action, '.', 1) = ${n}`), q.action);
      if (q.actor !== undefined) add((n) => `actor_id = ${n}`, q.actor);
      if (q.since !== undefined) add((n) => `at >= ${n}`, new Date(q.since));
      if (q.until !== undefined) add((n) => `at < ${n}`, new Date(q.until));
      if (q.cursor) {
        params.push(new Date(q.cursor.startMs), q.cursor.id);
        where.push(`(at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
      }
      params.push(q.limit + 1);
      const { rows } = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY at DESC, id DESC LIMIT $${params.length}`,
        params,
      );
      const more = rows.length > q.limit;
      const page = rows.slice(0, q.limit);
      const last = page.at(-1);
      return {
        entries: page.map(toView),
        limit: q.limit,
        next_cursor: more && last ? encodeKeysetCursor({ startMs: last.at.getTime(), id: last.id }) : null,
      };
    },

    async prune(days) {
      const { rowCount } = await pool.query(`DELETE FROM audit_log WHERE at < now() - make_interval(days => $1)`, [days]);
      return rowCount ?? 0;
    },
  };
}
