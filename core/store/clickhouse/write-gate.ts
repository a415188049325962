import type { EmbeddedConnection } from './embedded-connection.js';

/**
 * A gate on embedded chDB's writes, for a backup's snapshot (core/backup/create-backup.ts, docs/operations.md):
 * `pause()` waits for the writes in flight to finish and holds new ones until the returned
 * release is called, so the tables cloned meanwhile are all at one moment, with no write half in
 * one table and half in another. Reads never wait. Writes held wait in memory: the write path's
 * byte budget still bounds them (beyond it, 429 + Retry-After as in any overload).
 */
export interface WriteGate {
  /** Runs a write, after any pause in force. */
  run<T>(write: () => Promise<T>): Promise<T>;
  /** Holds new writes and resolves once none is in flight; call the result to let them go. */
  pause(): Promise<() => void>;
}

export function createWriteGate(): WriteGate {
  let inFlight = 0;
  /** Resolves when the current pause ends; undefined while writes flow. */
  let paused: Promise<void> | undefined;
  let idle: (() => void) | undefined;
  /** Pauses take turns (two backups at once): each waits for the one before it to be released. */
  let lastPause: Promise<void> = Promise.resolve();

  async function run<T>(write: () => Promise<T>): Promise<T> {
    while (paused) await paused;
    inFlight++;
    try {
      return await write();
    } finally {
      inFlight--;
      if (inFlight === 0) idle?.();
    }
  }

  function pause(): Promise<() => void> {
    const before = lastPause;
    let turnDone!: () => void;
    lastPause = new Promise<void>((resolve) => (turnDone = resolve));
    return before.then(async () => {
      let end!: () => void;
      paused = new Promise<void>((resolve) => (end = resolve));
      while (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      idle = undefined;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        paused = undefined;
        end();
        turnDone();
      };
    });
  }

  return { run, pause };
}

/**
 * `connection` with its inserts (client.insert: scores, the ledger; the gateway's raw inserts)
 * behind the gate. Queries and commands pass: the backup's own statements go through them.
 */
export function gatedInserts(connection: EmbeddedConnection, gate: WriteGate): EmbeddedConnection {
  return {
    ...connection,
    query: (params) => connection.query(params),
    command: (params) => connection.command(params),
    exec: (params) => connection.exec(params),
    ping: (params) => connection.ping(params),
    close: () => connection.close(),
    insert: (params) => gate.run(() => connection.insert(params)),
    chdb: {
      rawInsert: (params) => gate.run(() => connection.chdb.rawInsert(params)),
      streamInsert: (params) => gate.run(() => connection.chdb.streamInsert(params)),
    },
  };
}
