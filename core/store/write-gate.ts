/**
 * A gate on embedded chDB's writes, for a backup's snapshot (core/backup/create-backup.ts,
 * docs/operations.md): `exclusive(fn)` waits for the writes in flight to finish, holds new ones,
 * runs `fn` (whose own statements pass), then lets the held writes go. So the tables `fn` clones
 * are all at one moment, with no write half in one table and half in another. Reads never wait.
 * Held writes wait in memory: the write path's byte budget still bounds them (beyond it, 429 +
 * Retry-After as in any overload). store/clickhouse/write-gate.ts implements it.
 *
 * Promises: a held write is delayed, never dropped: it runs once the section ends and settles as
 * it would have without the gate. A section that gives up (WritesInFlightError) did not run `fn`,
 * and the writes it held go on at once.
 */
export interface WriteGate {
  /** Runs a write, after any exclusive section in force. */
  run<T>(write: () => Promise<T>): Promise<T>;
  /**
   * Runs `fn` with every other write held (see above); one section at a time. When the writes in
   * flight have not finished within `drainTimeoutMs` (a long mutation), it gives up before `fn`
   * runs and lets the held writes go (WritesInFlightError), rather than hold every write for as long.
   */
  exclusive<T>(fn: () => Promise<T>, options?: { drainTimeoutMs?: number }): Promise<T>;
}

/** The writes in flight did not finish in time: the section did not run. */
export class WritesInFlightError extends Error {
  constructor(
    readonly inFlight: number,
    readonly waitedMs: number,
  ) {
    super(`${inFlight} write${inFlight > 1 ? 's' : ''} to the analytical store (a deletion's rewrite, a cost recompute?) did not finish within ${waitedMs} ms`);
    this.name = 'WritesInFlightError';
  }
}
