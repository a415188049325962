/**
 * The dashboard's keyboard shortcuts (issue 32), one module for every page: the root layout
 * installs the listener (installShortcuts), ShortcutsDialog lists SHORTCUTS under `?`, a page adds
 * what only it does (onPageShortcut: the trace page's e / E), a list's own row keys move through
 * moveRow. No shortcut fires while typing in a field, nor with Ctrl, Alt or Meta held.
 */

/** `g` then one of these keys: go to that page. */
export const GO_TO: Readonly<Record<string, { href: string; label: string }>> = {
  t: { href: '/traces', label: 'Traces' },
  s: { href: '/sessions', label: 'Sessions' },
  r: { href: '/runs', label: 'Runs' },
  u: { href: '/suites', label: 'Suites' },
  a: { href: '/analytics', label: 'Analytics' },
};

/** What the `?` dialog lists, in its order. */
export const SHORTCUTS: ReadonlyArray<{ keys: string[]; what: string }> = [
  ...Object.entries(GO_TO).map(([key, to]) => ({ keys: ['g', key], what: `Go to ${to.label}` })),
  { keys: ['/'], what: "Search or filter this page's list" },
  { keys: ['j'], what: 'Next row of a list' },
  { keys: ['k'], what: 'Previous row of a list' },
  { keys: ['Enter'], what: 'Open the chosen row' },
  { keys: ['e'], what: 'Next error of a trace' },
  { keys: ['Shift', 'E'], what: 'Previous error of a trace' },
  { keys: ['u'], what: 'Go back (Backspace too)' },
  { keys: ['Esc'], what: 'Close a dialog' },
  { keys: ['?'], what: 'Show these shortcuts' },
];

export type ShortcutAction =
  | { kind: 'help' }
  | { kind: 'go'; href: string }
  | { kind: 'search' }
  | { kind: 'row'; step: 1 | -1 }
  | { kind: 'open' }
  | { kind: 'back' }
  | { kind: 'error'; step: 1 | -1 };

/** The part of a keydown event the shortcuts read. */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

/** Where a key is typed, not a shortcut: a text field, a list box, an editable element. */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as (Element & { isContentEditable?: boolean }) | null;
  if (!el || typeof el.closest !== 'function') return false;
  if (el.isContentEditable) return true;
  return el.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])') !== null;
}

/**
 * The action of `press` after the keys before it: `pending` is 'g' when the previous key was a
 * `g` (a go-to waits for its page's key). Returns the action (null: not a shortcut) and what is
 * pending after it.
 */
export function resolveKey(press: KeyPress, pending: 'g' | null): { action: ShortcutAction | null; pending: 'g' | null } {
  if (press.ctrlKey || press.altKey || press.metaKey) return { action: null, pending: null };
  if (pending === 'g') {
    const to = GO_TO[press.key];
    return { action: to ? { kind: 'go', href: to.href } : null, pending: null };
  }
  const single: Record<string, ShortcutAction> = {
    '?': { kind: 'help' },
    '/': { kind: 'search' },
    j: { kind: 'row', step: 1 },
    k: { kind: 'row', step: -1 },
    Enter: { kind: 'open' },
    e: { kind: 'error', step: 1 },
    E: { kind: 'error', step: -1 },
    u: { kind: 'back' },
    Backspace: { kind: 'back' },
  };
  if (press.key === 'g') return { action: null, pending: 'g' };
  return { action: single[press.key] ?? null, pending: null };
}

/** A list's rows for j / k and Enter: a list table's rows that are focusable (the traces list's) or hold a link. */
const ROW_SELECTOR = 'main tbody tr:is([tabindex], :has(a[href]))';
/** The page's search or filter field: the first search box of the page, else its filter bar's first field. */
const SEARCH_SELECTOR = 'main input[type="search"], main .filter-bar input:not([type="checkbox"]):not([type="radio"])';

/** The index of the row holding the focus among `rows`, -1 when none does. */
export function rowIndexOf(rows: readonly Element[], focused: Element | null): number {
  if (!focused) return -1;
  return rows.findIndex((r) => r === focused || r.contains(focused));
}

/** The row to move to: one `step` from `current` (-1: none yet, so the first row), kept within the list. */
export function nextRowIndex(current: number, step: 1 | -1, count: number): number {
  if (count === 0) return -1;
  if (current < 0) return 0;
  return Math.max(0, Math.min(count - 1, current + step));
}

/** Focuses the next (1) or previous (-1) row of the page's list; false when it has none. */
export function moveRow(step: 1 | -1): boolean {
  const rows = Array.from(document.querySelectorAll<HTMLElement>(ROW_SELECTOR));
  const next = nextRowIndex(rowIndexOf(rows, document.activeElement), step, rows.length);
  if (next < 0) return false;
  const row = rows[next];
  if (!row.hasAttribute('tabindex')) row.tabIndex = -1;
  row.focus();
  row.scrollIntoView({ block: 'nearest' });
  return true;
}

type PageShortcut = 'error';
const pageHandlers = new Map<PageShortcut, (step: 1 | -1) => void>();

/** A page's own shortcut (the trace page's e / E), while it is shown; returns its removal. */
export function onPageShortcut(name: PageShortcut, handler: (step: 1 | -1) => void): () => void {
  pageHandlers.set(name, handler);
  return () => {
    if (pageHandlers.get(name) === handler) pageHandlers.delete(name);
  };
}

/** Carries out `action`; false when it does nothing here (the key then does what it would have). */
function perform(action: ShortcutAction, hooks: { help: () => void; go: (href: string) => void }): boolean {
  switch (action.kind) {
    case 'help':
      hooks.help();
      return true;
    case 'go':
      hooks.go(action.href);
      return true;
    case 'search': {
      const field = document.querySelector<HTMLInputElement>(SEARCH_SELECTOR);
      if (!field) return false;
      field.focus();
      field.select();
      return true;
    }
    case 'row':
      return moveRow(action.step);
    case 'open': {
      const focused = document.activeElement;
      if (!(focused instanceof HTMLElement) || !focused.matches(ROW_SELECTOR)) return false;
      focused.querySelector<HTMLAnchorElement>('a[href]')?.click();
      return true;
    }
    case 'back':
      history.back();
      return true;
    case 'error': {
      const handler = pageHandlers.get('error');
      handler?.(action.step);
      return handler !== undefined;
    }
  }
}

/**
 * Listens for the shortcuts on the whole page; returns the removal. `help` opens the list of
 * shortcuts, `go` navigates. Keys already handled (default prevented), typed in a field, or
 * pressed while a dialog is open are left alone.
 */
export function installShortcuts(hooks: { help: () => void; go: (href: string) => void }): () => void {
  let pending: 'g' | null = null;
  const listener = (event: KeyboardEvent) => {
    if (event.defaultPrevented || isTyping(event.target) || document.querySelector('dialog[open]')) {
      pending = null;
      return;
    }
    const resolved = resolveKey(event, pending);
    pending = resolved.pending;
    if (resolved.pending) event.preventDefault();
    if (resolved.action && perform(resolved.action, hooks)) event.preventDefault();
  };
  window.addEventListener('keydown', listener);
  return () => window.removeEventListener('keydown', listener);
}
