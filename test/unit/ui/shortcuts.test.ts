import { describe, expect, it } from 'vitest';
import { GO_TO, nextRowIndex, resolveKey, rowIndexOf, SHORTCUTS, type KeyPress } from '../../../ui/src/lib/shortcuts.js';

const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({ key, ctrlKey: false, altKey: false, metaKey: false, ...mods });

/** Presses `keys` one after another, as the listener does, and returns the actions they gave. */
function typeKeys(...keys: string[]) {
  let pending: 'g' | null = null;
  const actions = [];
  for (const key of keys) {
    const r = resolveKey(press(key), pending);
    pending = r.pending;
    actions.push(r.action);
  }
  return { actions, pending };
}

describe('keyboard shortcuts', () => {
  it('goes to a page on g then its key, and only then', () => {
    expect(typeKeys('g', 't').actions).toEqual([null, { kind: 'go', href: '/traces' }]);
    expect(typeKeys('g', 'r').actions[1]).toEqual({ kind: 'go', href: '/runs' });
    expect(typeKeys('g', 's').actions[1]).toEqual({ kind: 'go', href: '/sessions' });
    expect(typeKeys('g', 'u').actions[1]).toEqual({ kind: 'go', href: '/suites' });
    // `t` alone is nothing; `g` waits for one key only, an unknown one ends it.
    expect(typeKeys('t').actions).toEqual([null]);
    expect(typeKeys('g', 'x', 't').actions).toEqual([null, null, null]);
    // `g u` is a go-to, not `u` (back).
    expect(typeKeys('g', 'u').actions[1]?.kind).toBe('go');
    expect(typeKeys('g').pending).toBe('g');
  });

  it('reads single keys: help, search, rows, open, errors, back', () => {
    expect(typeKeys('?', '/', 'j', 'k', 'Enter', 'e', 'E', 'u', 'Backspace').actions).toEqual([
      { kind: 'help' },
      { kind: 'search' },
      { kind: 'row', step: 1 },
      { kind: 'row', step: -1 },
      { kind: 'open' },
      { kind: 'error', step: 1 },
      { kind: 'error', step: -1 },
      { kind: 'back' },
      { kind: 'back' },
    ]);
    expect(typeKeys('q', 'Tab', 'ArrowDown').actions).toEqual([null, null, null]);
  });

  it('leaves keys with Ctrl, Alt or Meta to the browser, and forgets a pending g', () => {
    expect(resolveKey(press('k', { ctrlKey: true }), null).action).toBeNull();
    expect(resolveKey(press('/', { metaKey: true }), null).action).toBeNull();
    expect(resolveKey(press('t', { altKey: true }), 'g')).toEqual({ action: null, pending: null });
  });

  it('moves one row at a time within the list, starting at the first', () => {
    expect(nextRowIndex(-1, 1, 5)).toBe(0);
    expect(nextRowIndex(-1, -1, 5)).toBe(0);
    expect(nextRowIndex(0, 1, 5)).toBe(1);
    expect(nextRowIndex(3, -1, 5)).toBe(2);
    expect(nextRowIndex(4, 1, 5)).toBe(4);
    expect(nextRowIndex(0, -1, 5)).toBe(0);
    expect(nextRowIndex(-1, 1, 0)).toBe(-1);
  });

  it('finds the focused row, or the row holding the focused link', () => {
    const link = {};
    const row = (holds: unknown[] = []) => ({ contains: (x: unknown) => holds.includes(x) }) as unknown as Element;
    const rows = [row(), row([link]), row()];
    expect(rowIndexOf(rows, rows[2])).toBe(2);
    expect(rowIndexOf(rows, link as Element)).toBe(1);
    expect(rowIndexOf(rows, {} as Element)).toBe(-1);
    expect(rowIndexOf(rows, null)).toBe(-1);
  });

  it('lists every go-to and every single key in the ? dialog', () => {
    const listed = SHORTCUTS.map((s) => s.keys.join(' '));
    for (const key of Object.keys(GO_TO)) expect(listed).toContain(`g ${key}`);
    for (const key of ['/', 'j', 'k', 'Enter', 'e', 'Shift E', 'u', 'Esc', '?']) expect(listed).toContain(key);
  });
});
