/**
 * The trace page's span search and filters, over the spans the page has loaded (every page of
 * them: GET /api/traces/{id} in keyset pages). Text is a plain, case-insensitive substring (no
 * pattern syntax), matched against the span's name and its input and output as the trace view
 * holds them: the first 16,384 characters of each (SPAN_TEXT_CAP, core/model/span-page.ts).
 */
import { displayKind } from './span-role.js';
import type { SpanTree, TreeSpan } from './tree.js';

/** Where the search text is looked for. */
export type SearchScope = 'all' | 'name' | 'io';

export interface SpanFilter {
  text: string;
  scope: SearchScope;
  /** A display kind (span-role.ts: agent, chain, generation, tool, ...), or '' for any. */
  kind: string;
  status: '' | 'ok' | 'error';
}

export const NO_FILTER: SpanFilter = { text: '', scope: 'all', kind: '', status: '' };

export interface SearchableSpan extends TreeSpan {
  name: string;
  type: string;
  component_type: string | null;
  status: string;
  input: string;
  output: string;
  attributes?: Record<string, string> | null;
}

export const filterActive = (f: SpanFilter): boolean => f.text.trim() !== '' || f.kind !== '' || f.status !== '';

/** Whether `hay` holds `needle` (already lower case), ignoring case. */
const holds = (hay: string | null | undefined, needle: string): boolean => !!hay && hay.toLowerCase().includes(needle);

/** Whether one span passes the filter. */
export function spanMatches(span: SearchableSpan, f: SpanFilter): boolean {
  if (f.status && span.status !== f.status) return false;
  if (f.kind && displayKind(span) !== f.kind) return false;
  const needle = f.text.trim().toLowerCase();
  if (!needle) return true;
  if (f.scope !== 'io' && holds(span.name, needle)) return true;
  if (f.scope !== 'name' && (holds(span.input, needle) || holds(span.output, needle))) return true;
  return false;
}

export interface SpanMatches {
  /** Ids of the spans that pass, in tree order (depth first, children in start order). */
  ids: string[];
  /** The matches and their ancestors: the rows the filtered tree shows. */
  paths: Set<string>;
}

/** The spans of `order` (tree order) that pass, and the paths down to them. */
export function matchSpans<S extends SearchableSpan>(tree: SpanTree<S>, order: readonly S[], f: SpanFilter): SpanMatches {
  const ids: string[] = [];
  const paths = new Set<string>();
  for (const span of order) {
    if (!spanMatches(span, f)) continue;
    ids.push(span.span_id);
    // Up the parents until a span already on a path (its own ancestors are there too).
    let id: string | null = span.span_id;
    while (id && !paths.has(id)) {
      paths.add(id);
      const parent: string | null = tree.byId.get(id)?.span.parent_span_id ?? null;
      id = parent && tree.byId.has(parent) ? parent : null;
    }
  }
  return { ids, paths };
}

/** The next (step 1) or previous (step -1) of `ids` after `current`, wrapping; the first (or last) when `current` is none of them. */
export function cycle(ids: readonly string[], current: string | null, step: 1 | -1): string | null {
  if (ids.length === 0) return null;
  const at = current === null ? -1 : ids.indexOf(current);
  if (at < 0) return step === 1 ? ids[0] : ids[ids.length - 1];
  return ids[(at + step + ids.length) % ids.length];
}

/** "1 error", "4 errors": a count with its noun, singular for one. */
export const plural = (n: number, noun: string, nouns = `${noun}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? noun : nouns}`;
