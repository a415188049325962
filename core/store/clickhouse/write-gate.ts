import { AsyncLocalStorage } from 'node:async_hooks';
import type { EmbeddedConnection } from './embedded-connection.js';

/**
 * A gate on embedded chDB's writes, for a backup's snapshot (core/backup/create-backup.ts,
 * docs/operations.md): `exclusive(fn)` waits for the writes in flight to finish, holds new ones,
 * runs `fn` (whose own statements pass), then lets the held writes go. So the tables `fn` clones
 * are all at one moment, with no write half in one table and half in another. Reads never wait.
 * Held writes wait in memory: the write path's byte budget still bounds them (beyond it, 429 +
 * Retry-After as in any overload).
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
  constructor(readonly inFlight: number, readonly waitedMs: number) {
    super(`${inFlight} write${inFlight > 1 ? 's' : ''} to the analytical store (a deletion's rewrite, a cost recompute?) did not finish within ${waitedMs} ms`);
    this.name = 'WritesInFlightError';
  }
}

const DRAIN_TIMEOUT_MS = 10_000;

export function createWriteGate(): WriteGate {
  let inFlight = 0;
  /** Resolves when the current section ends; undefined while writes flow. */
  let held: Promise<void> | undefined;
  let idle: (() => void) | undefined;
  /** Sections take turns: each starts when the one before it has ended. */
  let lastSection: Promise<unknown> = Promise.resolve();
  /** Set inside a section: its own writes pass. */
  const inside = new AsyncLocalStorage<true>();

  async function run<T>(write: () => Promise<T>): Promise<T> {
    if (inside.getStore()) return write();
    while (held) await held;
    inFlight++;
    try {
      return await write();
    } finally {
      inFlight--;
      if (inFlight === 0) idle?.();
    }
  }

  function exclusive<T>(fn: () => Promise<T>, options: { drainTimeoutMs?: number } = {}): Promise<T> {
    const drainTimeoutMs = options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS;
    const section = lastSection.then(async () => {
      let end!: () => void;
      held = new Promise<void>((resolve) => (end = resolve));
      try {
        if (inFlight > 0) {
          let timer: NodeJS.Timeout | undefined;
          const drained = await Promise.race([
            (async () => {
              while (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
              return true;
            })(),
            new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), drainTimeoutMs))),
          ]);
          clearTimeout(timer);
          if (!drained) throw new WritesInFlightError(inFlight, drainTimeoutMs);
        }
        idle = undefined;
        return await inside.run(true, fn);
      } finally {
        idle = undefined;
        held = undefined;
        end();
      }
    });
    lastSection = section.catch(() => undefined);
    return section;
  }

  return { run, exclusive };
}

/**
 * `connection` with its writes behind the gate: inserts (client.insert: scores, the migration
 * ledger; the gateway's raw and streamed inserts) and commands (mutations, a cost recompute's
 * INSERT ... SELECT, the write path's undo of a refused write's parts). Queries and `exec` (the
 * gateway's SQL, reads mostly) pass, so a long read never delays a backup.
 */
export function gatedInserts(connection: EmbeddedConnection, gate: WriteGate): EmbeddedConnection {
  return {
    query: (params) => connection.query(params),
    exec: (params) => connection.exec(params),
    ping: (params) => connection.ping(params),
    close: () => connection.close(),
    command: (params) => gate.run(() => connection.command(params)),
    insert: (params) => gate.run(() => connection.insert(params)),
    chdb: {
      rawInsert: (params) => gate.run(() => connection.chdb.rawInsert(params)),
      streamInsert: (params) => gate.run(() => connection.chdb.streamInsert(params)),
    },
  };
}
