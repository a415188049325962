import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Claim, IdempotencyStore, IdempotentRequest, StoredAnswer } from '../idempotency.js';

export type { Claim, IdempotencyStore, IdempotentRequest, StoredAnswer };

interface Row {
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
}

/** How often a claim that lost a race to a release looks again, before calling the key busy. */
const CLAIM_ATTEMPTS = 3;

/** `idempotency_keys` (migration 015): docs/api.md, "Retries: Idempotency-Key". */
export function createIdempotencyStore(pool: pg.Pool): IdempotencyStore {
  const pk = (r: IdempotentRequest) => [r.projectId, r.route, r.key];

  async function tryClaim(request: IdempotentRequest, leaseMs: number, ttlMs: number): Promise<Claim | null> {
    const owner = randomUUID();
    // A new key is inserted; an expired one starts again; an abandoned claim of the same request
    // (no answer, lease over) is taken over with its first times kept. Anything else stays.
    const claimed = await pool.query(
      `INSERT INTO idempotency_keys (project_id, route, key, request_hash, owner, locked_until, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + $6::integer * interval '1 millisecond', now() + $7::integer * interval '1 millisecond')
       ON CONFLICT (project_id, route, key) DO UPDATE SET
         request_hash = EXCLUDED.request_hash,
         owner = EXCLUDED.owner,
         locked_until = EXCLUDED.locked_until,
         response_status = NULL,
         response_body = NULL,
         created_at = CASE WHEN idempotency_keys.expires_at <= now() THEN now() ELSE idempotency_keys.created_at END,
         expires_at = CASE WHEN idempotency_keys.expires_at <= now() THEN EXCLUDED.expires_at ELSE idempotency_keys.expires_at END
       WHERE idempotency_keys.expires_at <= now()
          OR (idempotency_keys.response_status IS NULL AND idempotency_keys.locked_until <= now()
              AND idempotency_keys.request_hash = EXCLUDED.request_hash)
       RETURNING owner`,
      [...pk(request), request.requestHash, owner, leaseMs, ttlMs],
    );
    if (claimed.rowCount) return { kind: 'owner', owner };
    const { rows } = await pool.query<Row>(
      'SELECT request_hash, response_status, response_body FROM idempotency_keys WHERE project_id = $1 AND route = $2 AND key = $3',
      pk(request),
    );
    // Released between the two statements: claim again.
    if (!rows.length) return null;
    const row = rows[0];
    if (row.request_hash !== request.requestHash) return { kind: 'reused' };
    if (row.response_status !== null && row.response_body !== null) return { kind: 'replay', answer: { status: row.response_status, body: row.response_body } };
    return { kind: 'in_progress' };
  }

  return {
    async claim(request, { leaseMs, ttlMs }) {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const claim = await tryClaim(request, leaseMs, ttlMs);
        if (claim) return claim;
      }
      return { kind: 'in_progress' };
    },

    async complete(request, owner, answer) {
      await pool.query(
        `UPDATE idempotency_keys SET response_status = $5, response_body = $6
         WHERE project_id = $1 AND route = $2 AND key = $3 AND owner = $4`,
        [...pk(request), owner, answer.status, answer.body],
      );
    },

    async release(request, owner) {
      await pool.query('DELETE FROM idempotency_keys WHERE project_id = $1 AND route = $2 AND key = $3 AND owner = $4 AND response_status IS NULL', [
        ...pk(request),
        owner,
      ]);
    },

    async deleteExpired() {
      const { rowCount } = await pool.query('DELETE FROM idempotency_keys WHERE expires_at <= now()');
      return rowCount ?? 0;
    },
  };
}
