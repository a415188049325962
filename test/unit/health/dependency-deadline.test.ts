import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../../api/deadline.js';

describe('withDeadline', () => {
  it('gives the value of a call that answers in time, and the error of one that fails', async () => {
    expect(await withDeadline(() => Promise.resolve(42), 100)).toEqual({ ok: true, value: 42 });
    const boom = new Error('boom');
    expect(await withDeadline(async () => Promise.reject(boom), 100)).toEqual({ ok: false, reason: 'error', error: boom });
    expect(
      await withDeadline(() => {
        throw boom;
      }, 100),
    ).toMatchObject({ ok: false, reason: 'error' });
  });

  it('settles after the deadline when the call never answers, and a late failure goes nowhere', async () => {
    const t0 = performance.now();
    expect(await withDeadline(() => new Promise<never>(() => undefined), 50)).toEqual({ ok: false, reason: 'timeout' });
    expect(performance.now() - t0).toBeLessThan(500);
    let unhandled = 0;
    const count = () => unhandled++;
    process.on('unhandledRejection', count);
    try {
      const late = () => new Promise<never>((_, reject) => setTimeout(() => reject(new Error('late')), 30));
      expect(await withDeadline(late, 5)).toMatchObject({ reason: 'timeout' });
      await new Promise((r) => setTimeout(r, 60));
      expect(unhandled).toBe(0);
    } finally {
      process.off('unhandledRejection', count);
    }
  });
});
