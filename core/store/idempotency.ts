/*
 * Idempotency-Key claims and stored answers of the creating POSTs (PostgreSQL, migration 015;
 * store/postgres/idempotency-store.ts implements it; docs/api.md, "Retries: Idempotency-Key").
 *
 * Promises:
 * - A claim is atomic across processes: of concurrent requests with one key, one owns it, the
 *   others see it in progress (or replay its answer once stored).
 * - A stored answer is durable (committed before `complete` resolves) and sent again as it was
 *   to every retry with the same request until the key expires (`ttlMs`); the same key with
 *   another request is refused (`reused`).
 * - An owner gone without answering loses the key after `leaseMs`, so a retry runs again.
 */

/** One request under an Idempotency-Key: the key is the project's, per route. */
export interface IdempotentRequest {
  projectId: string;
  /** `POST /api/runs`, ... */
  route: string;
  key: string;
  /** A digest of what was asked (the caller and the body): the same key with another request is refused. */
  requestHash: string;
}

/** A stored answer, as it was sent. */
export interface StoredAnswer {
  status: number;
  body: string;
}

/** What a claim found. */
export type Claim =
  /** The key is this request's: run it, then `complete` or `release` with `owner`. */
  | { kind: 'owner'; owner: string }
  /** The key's request was answered: send that answer again. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key's request is running (in this process or another). */
  | { kind: 'in_progress' }
  /** The key was used with another request. */
  | { kind: 'reused' };

export interface IdempotencyStore {
  /**
   * Claims the key for this request, atomically across processes: a new key (or one expired, or
   * one whose owner held it past `leaseMs` without answering: its process is taken to be gone)
   * becomes this request's for `leaseMs`, kept until `ttlMs` from now.
   */
  claim(request: IdempotentRequest, opts: { leaseMs: number; ttlMs: number }): Promise<Claim>;
  /** Stores the owner's answer: retries get it from now on. */
  complete(request: IdempotentRequest, owner: string, answer: StoredAnswer): Promise<void>;
  /** Gives the key up (the request failed): a retry runs again. */
  release(request: IdempotentRequest, owner: string): Promise<void>;
  /** Deletes expired keys; the number deleted. */
  deleteExpired(): Promise<number>;
}
