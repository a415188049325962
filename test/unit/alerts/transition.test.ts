import { describe, expect, it } from 'vitest';
import { transition } from '../../../core/alerts/transition.js';

const met = { kind: 'value', breached: true } as const;
const clear = { kind: 'value', breached: false } as const;
const none = { kind: 'no_data' } as const;

describe('transition', () => {
  it('fires once when the condition is met, then stays firing without events', () => {
    expect(transition('ok', met, 'ok')).toEqual({ state: 'firing', event: 'fired' });
    expect(transition('firing', met, 'ok')).toEqual({ state: 'firing' });
    expect(transition('no_data', met, 'alert')).toEqual({ state: 'firing', event: 'fired' });
  });

  it('resolves when the condition clears', () => {
    expect(transition('firing', clear, 'ok')).toEqual({ state: 'ok', event: 'resolved' });
    expect(transition('no_data', clear, 'alert')).toEqual({ state: 'ok', event: 'resolved' });
    expect(transition('ok', clear, 'ok')).toEqual({ state: 'ok' });
  });

  it('no data with policy ok counts as the condition cleared', () => {
    expect(transition('firing', none, 'ok')).toEqual({ state: 'ok', event: 'resolved' });
    expect(transition('ok', none, 'ok')).toEqual({ state: 'ok' });
  });

  it('no data with policy alert enters no_data once', () => {
    expect(transition('ok', none, 'alert')).toEqual({ state: 'no_data', event: 'no_data' });
    expect(transition('firing', none, 'alert')).toEqual({ state: 'no_data', event: 'no_data' });
    expect(transition('no_data', none, 'alert')).toEqual({ state: 'no_data' });
  });

  it('no data with policy keep changes nothing', () => {
    for (const s of ['ok', 'firing', 'no_data'] as const) expect(transition(s, none, 'keep')).toEqual({ state: s });
  });
});
