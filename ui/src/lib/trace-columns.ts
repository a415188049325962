/**
 * The traces list's columns: which exist, which show by default, which sort the list (GET
 * /api/traces `sort`), and the `cols` URL parameter that keeps a reader's choice (filters.ts).
 */
import type { TraceSortKey } from './types.js';

export interface TraceColumn {
  id: string;
  label: string;
  /** Right-aligned (a number). */
  num?: boolean;
  /** The sort a click on its header asks for. */
  sort?: TraceSortKey;
  /** Shown when the URL names no columns. */
  shown: boolean;
}

export const TRACE_COLUMNS: readonly TraceColumn[] = [
  { id: 'name', label: 'Name', shown: true },
  { id: 'input', label: 'Input', shown: true },
  { id: 'output', label: 'Output', shown: true },
  { id: 'status', label: 'Status', shown: true },
  { id: 'started', label: 'Started', sort: 'time', shown: true },
  { id: 'duration', label: 'Duration', num: true, sort: 'duration', shown: true },
  { id: 'tokens', label: 'Tokens', num: true, sort: 'tokens', shown: true },
  { id: 'cost', label: 'Cost', num: true, sort: 'cost', shown: true },
  { id: 'errors', label: 'Errors', num: true, shown: true },
  { id: 'scores', label: 'Scores', sort: 'score', shown: true },
  { id: 'spans', label: 'Spans', num: true, shown: false },
  { id: 'llm_calls', label: 'LLM calls', num: true, shown: false },
  { id: 'tool_calls', label: 'Tool calls', num: true, shown: false },
  { id: 'session', label: 'Session', shown: false },
  { id: 'user', label: 'User', shown: false },
  { id: 'trace_id', label: 'Trace id', shown: false },
];

const DEFAULT_IDS = TRACE_COLUMNS.filter((c) => c.shown).map((c) => c.id);

/** The columns a `cols` value shows (unknown ids dropped; the name always shown, first), or the default ones. */
export function shownColumns(cols: string | undefined): TraceColumn[] {
  const ids = new Set(cols ? ['name', ...cols.split(',')] : DEFAULT_IDS);
  return TRACE_COLUMNS.filter((c) => ids.has(c.id));
}

/** The `cols` value of a choice, or undefined when it is the default (the URL stays short). */
export function colsParam(ids: readonly string[]): string | undefined {
  const chosen = TRACE_COLUMNS.filter((c) => c.id !== 'name' && ids.includes(c.id)).map((c) => c.id);
  const defaults = DEFAULT_IDS.filter((id) => id !== 'name');
  return chosen.join(',') === defaults.join(',') ? undefined : chosen.join(',') || 'name';
}
