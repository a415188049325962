import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Membership, SignInInput, UserStore } from '../users.js';
import type { Role } from '../../principal.js';
import type { MemberView, UserView } from '../../model/user.js';
import { inTransaction } from './transaction.js';

export type { Membership, SignInInput, UserStore };

interface UserRow {
  id: string;
  name: string;
  email: string | null;
  server_admin: boolean;
  created_at: Date;
  last_sign_in_at: Date;
}

interface MemberRow {
  user_id: string;
  name: string;
  email: string | null;
  role: Role;
  granted_by: string | null;
  granted_at: Date;
}

const USER_COLUMNS = 'id, name, email, server_admin, created_at, last_sign_in_at';
const MEMBER_SELECT = `SELECT m.user_id, u.name, u.email, m.role, m.granted_by, m.granted_at
  FROM project_members m JOIN users u ON u.id = m.user_id`;

/** The one converter from a user row. */
function toUser(row: UserRow): UserView {
  return { ...row, created_at: row.created_at.toISOString(), last_sign_in_at: row.last_sign_in_at.toISOString() };
}

function toMember(row: MemberRow): MemberView {
  return { ...row, granted_at: row.granted_at.toISOString() };
}

export function createUserStore(pool: pg.Pool): UserStore {
  return {
    async signIn(input, firstGrant) {
      return inTransaction(pool, async (client) => {
        // xmax = 0 only on a row this statement inserted: the first sign-in.
        const { rows } = await client.query<UserRow & { created: boolean }>(
          `INSERT INTO users (id, issuer, subject, name, email, server_admin) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (issuer, subject) DO UPDATE
             SET name = EXCLUDED.name, email = EXCLUDED.email, server_admin = EXCLUDED.server_admin, last_sign_in_at = now()
           RETURNING ${USER_COLUMNS}, (xmax = 0) AS created`,
          [randomUUID(), input.issuer, input.subject, input.name, input.email, input.serverAdmin],
        );
        const { created, ...user } = rows[0];
        if (created && firstGrant) {
          await client.query('INSERT INTO project_members (project_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
            firstGrant.project_id,
            user.id,
            firstGrant.role,
          ]);
        }
        return { user: toUser(user), created };
      });
    },

    async get(id) {
      const { rows } = await pool.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
      return rows[0] ? toUser(rows[0]) : null;
    },

    async findByEmail(email) {
      const { rows } = await pool.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1) ORDER BY last_sign_in_at DESC LIMIT 1`, [
        email,
      ]);
      return rows[0] ? toUser(rows[0]) : null;
    },

    async memberships(userId) {
      const { rows } = await pool.query<Membership>('SELECT project_id, role FROM project_members WHERE user_id = $1 ORDER BY project_id', [userId]);
      return rows;
    },

    async members(projectId) {
      const { rows } = await pool.query<MemberRow>(`${MEMBER_SELECT} WHERE m.project_id = $1 ORDER BY lower(u.name), m.user_id`, [projectId]);
      return rows.map(toMember);
    },

    async setRole(projectId, userId, role, grantedBy) {
      return inTransaction(pool, async (client) => {
        const before = await client.query<{ role: Role }>('SELECT role FROM project_members WHERE project_id = $1 AND user_id = $2 FOR UPDATE', [
          projectId,
          userId,
        ]);
        await client.query(
          `INSERT INTO project_members (project_id, user_id, role, granted_by) VALUES ($1, $2, $3, $4)
           ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role, granted_by = EXCLUDED.granted_by, granted_at = now()`,
          [projectId, userId, role, grantedBy],
        );
        const { rows } = await client.query<MemberRow>(`${MEMBER_SELECT} WHERE m.project_id = $1 AND m.user_id = $2`, [projectId, userId]);
        return { member: toMember(rows[0]), previous: before.rows[0]?.role ?? null };
      });
    },

    async removeMember(projectId, userId) {
      const { rows } = await pool.query<{ role: Role }>('DELETE FROM project_members WHERE project_id = $1 AND user_id = $2 RETURNING role', [
        projectId,
        userId,
      ]);
      return rows[0]?.role ?? null;
    },
  };
}
