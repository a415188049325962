import type pg from 'pg';
import type { SessionStore, SessionSubject, StoredSession } from '../sessions.js';
import type { Role } from '../../principal.js';
import type { Membership } from '../users.js';

export type { SessionStore, SessionSubject, StoredSession };

interface SessionRow {
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  api_key_id: string | null;
  user_id: string | null;
  user_name: string | null;
  email: string | null;
  server_admin: boolean | null;
  memberships: Membership[] | null;
  key_id: string | null;
  key_project: string | null;
  key_role: Role | null;
  key_name: string | null;
  key_prefix: string | null;
  key_server_admin: boolean | null;
}

/** Live: not past the absolute expiry, seen within the idle time (the parameter `idleMs`, in ms). */
const live = (idleMs: string) => `s.expires_at > now() AND s.last_seen_at > now() - make_interval(secs => ${idleMs}::double precision / 1000)`;

export function createSessionStore(pool: pg.Pool): SessionStore {
  return {
    async create(tokenHash, subject, csrfToken, expiresAt) {
      await pool.query('INSERT INTO sessions (token_hash, user_id, api_key_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4, $5)', [
        tokenHash,
        'userId' in subject ? subject.userId : null,
        'apiKeyId' in subject ? subject.apiKeyId : null,
        csrfToken,
        expiresAt,
      ]);
    },

    async find(tokenHash, idleMs) {
      const { rows } = await pool.query<SessionRow>(
        `SELECT s.csrf_token, s.created_at, s.last_seen_at, s.expires_at, s.api_key_id,
                u.id AS user_id, u.name AS user_name, u.email, u.server_admin,
                (SELECT json_agg(json_build_object('project_id', m.project_id, 'role', m.role) ORDER BY m.project_id)
                   FROM project_members m WHERE m.user_id = u.id) AS memberships,
                k.id AS key_id, k.project_id AS key_project, k.role AS key_role, k.name AS key_name, k.prefix AS key_prefix, k.server_admin AS key_server_admin
         FROM sessions s
         LEFT JOIN users u ON u.id = s.user_id
         LEFT JOIN api_keys k ON k.id = s.api_key_id AND k.revoked_at IS NULL
         WHERE s.token_hash = $1 AND ${live('$2')}`,
        [tokenHash, idleMs],
      );
      const row = rows[0];
      // A key's session whose key was revoked (the join found no live key) is over.
      if (!row || (row.api_key_id !== null && row.key_id === null)) return null;
      return {
        csrfToken: row.csrf_token,
        createdAt: row.created_at,
        lastSeenAt: row.last_seen_at,
        expiresAt: row.expires_at,
        user:
          row.user_id === null
            ? null
            : { id: row.user_id, name: row.user_name!, email: row.email, serverAdmin: row.server_admin!, memberships: row.memberships ?? [] },
        key:
          row.key_id === null
            ? null
            : {
                id: row.key_id,
                projectId: row.key_project!,
                role: row.key_role!,
                name: row.key_name!,
                prefix: row.key_prefix!,
                serverAdmin: row.key_server_admin === true,
              },
      };
    },

    async touch(tokenHash) {
      await pool.query('UPDATE sessions SET last_seen_at = now() WHERE token_hash = $1', [tokenHash]);
    },

    async delete(tokenHash) {
      await pool.query('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
    },

    async deleteExpired(idleMs) {
      const { rowCount } = await pool.query(`DELETE FROM sessions s WHERE NOT (${live('$1')})`, [idleMs]);
      return rowCount ?? 0;
    },
  };
}
