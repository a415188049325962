import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../../collector/batcher.js';
import { BackpressureError, DataRejectedError } from '../../../core/errors.js';
import { createLogger } from '../../../core/logger.js';
import type { RowBatch } from '../../../core/model/span.js';
import { encodeSpanRow } from '../../../core/store/clickhouse/rows.js';
import { spanRecord } from '../../helpers/span-record.js';
import { spanRowFields } from '../../helpers/tsv-rows.js';

const logger = createLogger('silent');

const span = (id: string, bytes = 10): string =>
  encodeSpanRow(
    spanRecord({ span_id: id, name: 'n', span_type: 'span', component_type: null, convention: 'none', start_time: 1, end_time: 2, input: 'x'.repeat(bytes) }),
  );

const ids = (batch: RowBatch) => batch.spans.map((s) => spanRowFields(s).span_id);

/** A writer whose inserts finish when the test says so (the batcher is what is under test here). */
function gatedWriter() {
  const batches: RowBatch[] = [];
  const gates: Array<{ open(): void; fail(e: Error): void }> = [];
  return {
    batches,
    gates,
    writeRows(batch: RowBatch) {
      batches.push(batch);
      return new Promise<void>((resolve, reject) => gates.push({ open: resolve, fail: reject }));
    },
  };
}

/** A batcher on a gated writer: 1,000 spans, no wait and 1 MiB pending unless `limits` say otherwise. */
function gatedBatcher(limits: Partial<Omit<Parameters<typeof createBatcher>[0], 'writer' | 'logger'>> = {}) {
  const writer = gatedWriter();
  return { writer, sink: createBatcher({ writer, maxSpans: 1000, maxWaitMs: 0, maxPendingBytes: 1 << 20, logger, ...limits }) };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('batcher', () => {
  it('groups writes that arrive while the insert slots are busy into the next insert and resolves each after its insert', async () => {
    const { writer, sink } = gatedBatcher({ maxConcurrentFlushes: 1 });
    let firstDone = false;
    const first = sink.write({ spans: [span('a')], stats: [] }).then(() => (firstDone = true));
    await tick();
    const rest = [sink.write({ spans: [span('b')], stats: [] }), sink.write({ spans: [span('c')], stats: [] })];
    await tick();
    expect(writer.batches).toHaveLength(1);
    expect(firstDone).toBe(false);
    writer.gates[0].open();
    await first;
    await tick();
    expect(writer.batches).toHaveLength(2);
    expect(ids(writer.batches[1])).toEqual(['b', 'c']);
    writer.gates[1].open();
    await Promise.all(rest);
  });

  it('runs up to maxConcurrentFlushes inserts at once', async () => {
    const { writer, sink } = gatedBatcher({ maxConcurrentFlushes: 2 });
    const writes = ['a', 'b', 'c', 'd'].map(async (id) => {
      const p = sink.write({ spans: [span(id)], stats: [] });
      await tick();
      return p;
    });
    await tick();
    await tick();
    await tick();
    expect(writer.batches).toHaveLength(2);
    writer.gates[0].open();
    await tick();
    expect(writer.batches).toHaveLength(3);
    expect(ids(writer.batches[2])).toEqual(['c', 'd']);
    writer.gates[1].open();
    writer.gates[2].open();
    await Promise.all(writes);
  });

  it('rejects every write of a failed insert so the clients retry', async () => {
    const { writer, sink } = gatedBatcher();
    const p = sink.write({ spans: [span('a')], stats: [] });
    await tick();
    writer.gates[0].fail(new Error('disk full'));
    await expect(p).rejects.toThrow('disk full');
    expect(sink.stats().pendingBytes).toBe(0);
  });

  it('splits a batch the store refuses for its data until only the writes at fault fail; the others are stored', async () => {
    const stored: string[] = [];
    let inserts = 0;
    // A store that refuses any insert holding the poison row, as ClickHouse refuses unparsable data.
    const writer = {
      writeRows(batch: RowBatch) {
        inserts++;
        if (ids(batch).includes('poison')) return Promise.reject(new DataRejectedError('Cannot parse input'));
        stored.push(...ids(batch));
        return Promise.resolve();
      },
    };
    const sink = createBatcher({ writer, maxSpans: 1000, maxWaitMs: 20, maxPendingBytes: 1 << 20, logger, maxConcurrentFlushes: 1 });
    const names = ['a', 'b', 'c', 'poison', 'd', 'e', 'f'];
    const results = await Promise.allSettled(names.map((id) => sink.write({ spans: [span(id)], stats: [] })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((results[3] as PromiseRejectedResult).reason).toMatchObject({ status: 400, code: 'DATA_REJECTED' });
    expect(stored.sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    // Bisection: a handful of inserts, not one per write.
    expect(inserts).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(names.length)) + 1);
    expect(sink.stats().pendingBytes).toBe(0);
  });

  it('refuses writes beyond the memory bound with 429 + retry-after, and accepts again once flushed', async () => {
    const { writer, sink } = gatedBatcher({ maxPendingBytes: 2_000 });
    const accepted = sink.write({ spans: [span('a', 1_500)], stats: [] });
    const refused = await sink.write({ spans: [span('b', 1_500)], stats: [] }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BackpressureError);
    expect(refused).toMatchObject({ status: 429, retryAfterSeconds: 1 });
    await tick();
    writer.gates[0].open();
    await accepted;
    const again = sink.write({ spans: [span('c', 1_500)], stats: [] });
    await tick();
    writer.gates[1].open();
    await again;
  });

  it('admit() refuses up front once the bound is reached, and while shutting down', async () => {
    const { writer, sink } = gatedBatcher({ maxPendingBytes: 2_000 });
    expect(() => sink.admit()).not.toThrow();
    const accepted = sink.write({ spans: [span('a', 2_500)], stats: [] });
    expect(() => sink.admit()).toThrowError(BackpressureError);
    await tick();
    writer.gates[0].open();
    await accepted;
    expect(() => sink.admit()).not.toThrow();
    await sink.close();
    expect(() => sink.admit()).toThrow(/shutting down/);
  });

  it('lingers up to maxWaitMs when idle so concurrent writes share one insert', async () => {
    const { writer, sink } = gatedBatcher({ maxWaitMs: 30 });
    const writes = [sink.write({ spans: [span('a')], stats: [] }), sink.write({ spans: [span('b')], stats: [] })];
    await new Promise((r) => setTimeout(r, 60));
    expect(writer.batches).toHaveLength(1);
    expect(writer.batches[0].spans).toHaveLength(2);
    writer.gates[0].open();
    await Promise.all(writes);
  });

  it('after an insert, waits for its writers to write again so their next writes share the next insert', async () => {
    const { writer, sink } = gatedBatcher({ maxWaitMs: 40 });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const first = sink.write({ spans: [span('a')], stats: [] });
    await sleep(60);
    expect(writer.batches).toHaveLength(1);
    // 'b' arrives while the first insert runs and is old enough by the time it ends.
    const second = sink.write({ spans: [span('b')], stats: [] });
    await sleep(60);
    writer.gates[0].open();
    await first;
    await tick();
    // The writer of 'a' is back within the window: 'b' waited for it rather than going alone.
    expect(writer.batches).toHaveLength(1);
    const third = sink.write({ spans: [span('c')], stats: [] });
    await tick();
    expect(writer.batches).toHaveLength(2);
    expect(ids(writer.batches[1])).toEqual(['b', 'c']);
    writer.gates[1].open();
    await Promise.all([second, third]);
  });

  it('waits for writers who do not come back no longer than maxWaitMs after the insert', async () => {
    const { writer, sink } = gatedBatcher({ maxWaitMs: 40 });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const first = sink.write({ spans: [span('a')], stats: [] });
    await sleep(60);
    const second = sink.write({ spans: [span('b')], stats: [] });
    await sleep(60);
    writer.gates[0].open();
    await first;
    const ended = performance.now();
    await expect.poll(() => writer.batches.length, { timeout: 2_000, interval: 2 }).toBe(2);
    const waited = performance.now() - ended;
    expect(waited).toBeGreaterThanOrEqual(30);
    expect(ids(writer.batches[1])).toEqual(['b']);
    writer.gates[1].open();
    await second;
  });

  it('flushes what is buffered on close and refuses new writes', async () => {
    const { writer, sink } = gatedBatcher({ maxWaitMs: 10_000 });
    const pending = sink.write({ spans: [span('a')], stats: [] });
    const closed = sink.close();
    await tick();
    expect(writer.batches).toHaveLength(1);
    writer.gates[0].open();
    await Promise.all([pending, closed]);
    await expect(sink.write({ spans: [span('z')], stats: [] })).rejects.toMatchObject({ status: 503 });
  });
});
