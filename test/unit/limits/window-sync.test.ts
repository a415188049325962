import { describe, expect, it } from 'vitest';
import { windowSync, type WindowCounter } from '../../../core/limits/window-sync.js';

const counter = (pending: number): WindowCounter => ({ windowStart: 0, known: 0, pending, syncing: 0 });

describe('windowSync: a process shares its window counts through the store', () => {
  it('sends pending counts once: out of pending while the write runs, out of syncing when it is stored', async () => {
    const c = counter(5);
    let duringSend: Pick<WindowCounter, 'pending' | 'syncing'> | undefined;
    const sync = windowSync({ pruneWindows: () => Promise.resolve() }, () => {});
    await sync.start([{ c, add: 5 }], async () => {
      duringSend = { pending: c.pending, syncing: c.syncing };
      await Promise.resolve();
    });
    expect(duringSend).toEqual({ pending: 0, syncing: 5 });
    expect(c).toMatchObject({ pending: 0, syncing: 0 });
    expect(sync.running).toBeUndefined();
  });

  it('puts the counts back into pending when the write fails, so the next sync sends them', async () => {
    const c = counter(3);
    const failures: unknown[] = [];
    const sync = windowSync({ pruneWindows: () => Promise.resolve() }, (err) => failures.push(err));
    await sync.start([{ c, add: 3 }], () => Promise.reject(new Error('store down')));
    expect(c).toMatchObject({ pending: 3, syncing: 0 });
    expect(failures.map((e) => (e as Error).message)).toEqual(['store down']);
  });

  it('a prune that fails after the counts were stored does not count them again', async () => {
    const c = counter(0);
    const failures: unknown[] = [];
    const sync = windowSync({ pruneWindows: () => Promise.reject(new Error('prune failed')) }, (err) => failures.push(err));
    let sent = 0;
    // Every 60th sync prunes the store's old windows.
    for (let i = 0; i < 60; i++) {
      c.pending += 1;
      await sync.start([{ c, add: 1 }], () => {
        sent += 1;
        return Promise.resolve();
      });
    }
    expect(sent).toBe(60);
    expect(c).toMatchObject({ pending: 0, syncing: 0 });
    expect(failures.map((e) => (e as Error).message)).toEqual(['prune failed']);
  });
});
