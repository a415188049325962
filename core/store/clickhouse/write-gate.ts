import { AsyncLocalStorage } from 'node:async_hooks';
import type { EmbeddedConnection } from './embedded-connection.js';
import { WritesInFlightError, type WriteGate } from '../write-gate.js';

// The contract (core/store/write-gate.ts), for the modules that name it here.
export { WritesInFlightError, type WriteGate };

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
