/**
 * The in-process chDB connection, made safe to share between callers.
 *
 * chDB 3.4 (libchdb 26.7) leaves a failed query's partial result on the connection. A query that
 * fails after its output format wrote some blocks (TIMEOUT_EXCEEDED from max_execution_time,
 * MEMORY_LIMIT_EXCEEDED, a result limit, a throwIf on a later row) returns its error, but
 * chdb-core's `ChdbClient::executeMaterializedQuery` takes that error path without
 * `resetQueryOutputVector()`. The next query that succeeds on the connection takes the buffer
 * with `stealQueryOutputVector()`, so it gets the stale rows with its own rows after them, in any
 * format, whoever asked for it. Failures add up until a success takes them.
 *
 * So every call that can return a result goes through one queue per connection, and after a
 * failure the queue runs a throwaway `SELECT 1` that takes the leftovers, before any other call.
 * chDB runs one statement at a time per connection anyway (a mutex in ChdbClient), so the queue
 * costs no parallelism; what it adds is that the next call starts when the last one has finished,
 * not while it runs. Callers' abort signals settle their promise at once, as chDB's did, but the
 * queue moves on only when chDB has finished the statement (it cannot be interrupted), so an
 * aborted statement that then fails is cleaned up like any other.
 *
 * Raw inserts (`chdb.rawInsert`, `chdb.streamInsert`) do not wait in the queue: an INSERT formats
 * no output, so it leaves none when it fails, and chdb-node's raw insert never reads the result
 * buffer (leftovers it happens to take are dropped), so it can neither cause nor see stale bytes.
 * That keeps a remote client's slow streamed insert (the gateway) from holding up the queue while
 * its body trickles in. The service's own write path inserts on connections of its own
 * (insert-lanes.ts), so it does not wait for this connection's statements at all.
 */
import { Readable } from 'node:stream';
import type { ChdbConnection, ChdbExtension, Connection } from 'chdb/connection';
import { assertNoEmptyLine } from './inline-insert.js';

/** What the service uses of the in-process connection: @clickhouse/client's Connection and chDB's raw inserts. */
export interface EmbeddedConnection extends Connection<Readable> {
  readonly chdb: Pick<ChdbExtension, 'rawInsert' | 'streamInsert'>;
}

const noop = (): void => {};

function abortError(): Error {
  const err = new Error('The query was aborted (chDB finishes it in the background before the connection runs another)');
  err.name = 'AbortError';
  return err;
}

/** `run`'s outcome, or an AbortError as soon as `signal` aborts. */
function settleOnAbort<T>(run: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    run.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A request body read whole before the call takes its turn, so no turn waits on a sender. */
async function buffered(values: AsyncIterable<Buffer | string | Uint8Array>): Promise<{ data: Buffer; stream: Readable }> {
  const chunks: Buffer[] = [];
  for await (const chunk of values) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  const data = Buffer.concat(chunks);
  return { data, stream: Readable.from([data], { objectMode: false }) };
}

/** `inner` with its calls queued, and the result buffer drained after every failure (see above). */
export function serializedChdbConnection(inner: ChdbConnection): EmbeddedConnection {
  let tail: Promise<void> = Promise.resolve();
  /** A failed call may have left output on the connection that no successful query has taken yet. */
  let dirty = false;

  async function drain(): Promise<void> {
    await inner.chdb.queryAsync('SELECT 1', { format: 'TabSeparated' });
    dirty = false;
  }

  function queued<T>(signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
    const run = tail.then(async () => {
      if (signal?.aborted) throw abortError();
      // Only when the drain after the last failure failed too: never run a query on stale bytes.
      if (dirty) await drain();
      try {
        return await call();
      } catch (err) {
        dirty = true;
        throw err;
      }
    });
    tail = run.then(noop, () => (dirty ? drain().catch(noop) : undefined));
    return signal ? settleOnAbort(run, signal) : run;
  }

  return {
    // chDB's own signal handling would settle the call before chDB is done: the queue keeps it.
    query: (params) => queued(params.abort_signal, () => inner.query({ ...params, abort_signal: undefined })),
    command: (params) => queued(params.abort_signal, () => inner.command({ ...params, abort_signal: undefined })),
    async exec(params) {
      const values = params.values === undefined ? undefined : await buffered(params.values);
      if (values) assertNoEmptyLine(values.data);
      return queued(params.abort_signal, () => inner.exec({ ...params, values: values?.stream, abort_signal: undefined }));
    },
    async insert(params) {
      const values = typeof params.values === 'string' ? params.values : await buffered(params.values);
      assertNoEmptyLine(typeof values === 'string' ? values : values.data);
      return queued(params.abort_signal, () =>
        inner.insert({ ...params, values: typeof values === 'string' ? values : values.stream, abort_signal: undefined }),
      );
    },
    ping: (params) => queued(undefined, () => inner.ping(params)),
    close: () => inner.close(),
    chdb: {
      rawInsert: (params) => inner.chdb.rawInsert(params),
      streamInsert: (params) => inner.chdb.streamInsert(params),
    },
  };
}
