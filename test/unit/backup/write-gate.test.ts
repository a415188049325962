import { describe, expect, it } from 'vitest';
import { createWriteGate, WritesInFlightError } from '../../../core/store/clickhouse/write-gate.js';

/** The gate a backup holds embedded chDB's writes with while it clones the tables. */

const tick = () => new Promise((r) => setTimeout(r, 5));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('write gate', () => {
  it('waits for the writes in flight, holds new ones during the section, then lets them go', async () => {
    const gate = createWriteGate();
    const events: string[] = [];
    const inFlight = deferred();
    const first = gate.run(async () => {
      events.push('write 1 starts');
      await inFlight.promise;
      events.push('write 1 ends');
    });
    const section = deferred();
    const exclusive = gate.exclusive(async () => {
      events.push('section starts');
      // The section's own writes pass.
      await gate.run(() => Promise.resolve(void events.push('write inside the section')));
      await section.promise;
      events.push('section ends');
      return 42;
    });
    await tick();
    const held = gate.run(() => Promise.resolve(void events.push('write 2')));
    await tick();
    expect(events).toEqual(['write 1 starts']);
    inFlight.resolve();
    await tick();
    expect(events).toEqual(['write 1 starts', 'write 1 ends', 'section starts', 'write inside the section']);
    section.resolve();
    expect(await exclusive).toBe(42);
    await Promise.all([first, held]);
    expect(events.slice(-2)).toEqual(['section ends', 'write 2']);
  });

  it('runs sections one at a time, and a failed section lets writes go', async () => {
    const gate = createWriteGate();
    const events: string[] = [];
    const a = gate.exclusive(async () => {
      events.push('a');
      await tick();
      throw new Error('clone failed');
    });
    const b = gate.exclusive(() => Promise.resolve(void events.push('b')));
    await expect(a).rejects.toThrow('clone failed');
    await b;
    await gate.run(() => Promise.resolve(void events.push('write')));
    expect(events).toEqual(['a', 'b', 'write']);
  });

  it('gives up when a write in flight does not finish in time, and lets the held writes go', async () => {
    const gate = createWriteGate();
    const stuck = deferred();
    const long = gate.run(() => stuck.promise);
    let ran = false;
    const section = gate.exclusive(() => Promise.resolve(void (ran = true)), { drainTimeoutMs: 50 });
    await tick();
    const held = gate.run(() => Promise.resolve('written'));
    await expect(section).rejects.toBeInstanceOf(WritesInFlightError);
    await expect(section).rejects.toThrow("1 write to the analytical store (a deletion's rewrite, a cost recompute?) did not finish within 50 ms");
    expect(ran).toBe(false);
    expect(await held).toBe('written');
    stuck.resolve();
    await long;
    expect(await gate.exclusive(() => Promise.resolve('next'))).toBe('next');
  });
});
