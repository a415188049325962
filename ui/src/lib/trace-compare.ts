/**
 * Trace comparison (/compare/traces): two span trees aligned by name and position, with the
 * differences in output, tokens and timing of each aligned pair.
 */
import { diffLines, diffWordsWithSpace, type Change } from 'diff';
import { buildTree, type SpanNode } from './tree.js';
import { prettyJson } from './trace-view.js';
import { asChat, type Json } from './content.js';
import { setParams } from './filters.js';

/** The span fields a comparison reads (a subset of the API's TraceSpanView). */
export interface CompareSpan {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  duration_ms: number;
  input_tokens: number;
  output_tokens: number;
  output: string;
  output_truncated?: boolean;
}

/** Most spans read per side: one page of GET /api/traces/{id} (`spans_limit`). */
export const COMPARE_SPAN_CAP = 5000;

export type RowState = 'both' | 'only-a' | 'only-b';

export interface AlignedRow<S extends CompareSpan> {
  /** The row's path (below), interned: equal paths in A and B have the same id. */
  id: number;
  depth: number;
  name: string;
  a: S | null;
  b: S | null;
  state: RowState;
  /** b - a, when both sides have the span. */
  durationDelta: number | null;
  tokenDelta: number | null;
  /** Whether the outputs differ; null when a side is missing. */
  outputChanged: boolean | null;
}

export interface Alignment<S extends CompareSpan> {
  rows: AlignedRow<S>[];
  /**
   * A row's path: the names from the root down, each with its occurrence among same-named
   * siblings (`agent#0/llm#1`; `/` and `%` in names escaped). Built on demand: O(depth).
   */
  pathOf: (row: AlignedRow<S>) => string;
  /** The row at a path, or null. */
  rowAt: (path: string) => AlignedRow<S> | null;
}

const tokens = (s: CompareSpan) => s.input_tokens + s.output_tokens;
const escapeName = (name: string) => name.replaceAll('%', '%25').replaceAll('/', '%2F');

/**
 * Interned paths: id -> (parent id, `name#occurrence`), and back. A path is never built as one
 * string while aligning, so a 5,000-deep chain costs what a flat trace does.
 */
class Paths {
  private ids = new Map<string, number>();
  parents: number[] = [];
  segments: string[] = [];
  id(parent: number, segment: string): number {
    const k = `${parent}\u0000${segment}`;
    let id = this.ids.get(k);
    if (id === undefined) {
      id = this.segments.length;
      this.ids.set(k, id);
      this.parents.push(parent);
      this.segments.push(segment);
    }
    return id;
  }
  find(parent: number, segment: string): number | undefined {
    return this.ids.get(`${parent}\u0000${segment}`);
  }
}

/** Children with their path ids (occurrence counted among earlier siblings of the same name), in order. */
function keyed<S extends CompareSpan>(paths: Paths, nodes: readonly SpanNode<S>[], parent: number): Array<[number, SpanNode<S>]> {
  const seen = new Map<string, number>();
  return nodes.map((n) => {
    const i = seen.get(n.span.name) ?? 0;
    seen.set(n.span.name, i + 1);
    return [paths.id(parent, `${escapeName(n.span.name)}#${i}`), n];
  });
}

/**
 * The union of two sibling lists in display order: A's order, with each span only B has placed
 * after the B span before it that A also has (at the start when none).
 */
function mergeOrder<S extends CompareSpan>(
  a: Array<[number, SpanNode<S>]>,
  b: Array<[number, SpanNode<S>]>,
): Array<[number, SpanNode<S> | null, SpanNode<S> | null]> {
  const aIndex = new Map(a.map(([k], i) => [k, i]));
  const bByKey = new Map(b);
  const after = new Map<number, Array<[number, SpanNode<S>]>>();
  let last = -1;
  for (const entry of b) {
    const i = aIndex.get(entry[0]);
    if (i !== undefined) last = i;
    else {
      let list = after.get(last);
      if (!list) after.set(last, (list = []));
      list.push(entry);
    }
  }
  const out: Array<[number, SpanNode<S> | null, SpanNode<S> | null]> = [];
  for (const [k, n] of after.get(-1) ?? []) out.push([k, null, n]);
  a.forEach(([k, n], i) => {
    out.push([k, n, bByKey.get(k) ?? null]);
    for (const [kb, nb] of after.get(i) ?? []) out.push([kb, null, nb]);
  });
  return out;
}

/** Whether two outputs differ. Outputs the trace view cut (16,384 characters) compare by what was sent. */
export function outputsDiffer(a: CompareSpan, b: CompareSpan): boolean {
  return a.output !== b.output;
}

/**
 * The rows of the comparison, depth first: each span matched with the span at the same path in
 * the other trace; a span without a match is a row with the other side missing. Iterative, so a
 * deep chain cannot overflow the stack.
 */
export function alignTraces<S extends CompareSpan>(spansA: readonly S[], spansB: readonly S[]): Alignment<S> {
  const treeA = buildTree(spansA);
  const treeB = buildTree(spansB);
  const paths = new Paths();
  const rows: AlignedRow<S>[] = [];
  type Item = { id: number; depth: number; a: SpanNode<S> | null; b: SpanNode<S> | null };
  const stack: Item[] = [];
  const push = (list: Array<[number, SpanNode<S> | null, SpanNode<S> | null]>, depth: number) => {
    for (let i = list.length - 1; i >= 0; i--) stack.push({ id: list[i][0], a: list[i][1], b: list[i][2], depth });
  };
  push(mergeOrder(keyed(paths, treeA.roots, -1), keyed(paths, treeB.roots, -1)), 0);
  while (stack.length) {
    const { id, depth, a, b } = stack.pop()!;
    const sa = a?.span ?? null;
    const sb = b?.span ?? null;
    rows.push({
      id,
      depth,
      name: (sa ?? sb)!.name,
      a: sa,
      b: sb,
      state: sa && sb ? 'both' : sa ? 'only-a' : 'only-b',
      durationDelta: sa && sb ? sb.duration_ms - sa.duration_ms : null,
      tokenDelta: sa && sb ? tokens(sb) - tokens(sa) : null,
      outputChanged: sa && sb ? outputsDiffer(sa, sb) : null,
    });
    push(mergeOrder(keyed(paths, a?.children ?? [], id), keyed(paths, b?.children ?? [], id)), depth + 1);
  }
  const byId = new Map(rows.map((r) => [r.id, r]));
  return {
    rows,
    pathOf(row) {
      const parts: string[] = [];
      for (let id = row.id; id >= 0; id = paths.parents[id]) parts.push(paths.segments[id]);
      return parts.reverse().join('/');
    },
    rowAt(path) {
      let id = -1;
      for (const segment of path.split('/')) {
        const next = paths.find(id, segment);
        if (next === undefined) return null;
        id = next;
      }
      return byId.get(id) ?? null;
    },
  };
}

/** A duration change worth highlighting: at least 20 % of the slower side and at least 1 ms. */
export function notableDuration(a: number, b: number): boolean {
  const delta = Math.abs(b - a);
  return delta >= 1 && delta >= 0.2 * Math.max(a, b);
}

export interface CompareSummary {
  matched: number;
  onlyA: number;
  onlyB: number;
  changedOutputs: number;
  slower: number;
  faster: number;
  tokenChanges: number;
}

export function summarize(rows: readonly AlignedRow<CompareSpan>[]): CompareSummary {
  const s: CompareSummary = { matched: 0, onlyA: 0, onlyB: 0, changedOutputs: 0, slower: 0, faster: 0, tokenChanges: 0 };
  for (const r of rows) {
    if (r.state === 'only-a') s.onlyA++;
    else if (r.state === 'only-b') s.onlyB++;
    else {
      s.matched++;
      if (r.outputChanged) s.changedOutputs++;
      if (r.tokenDelta) s.tokenChanges++;
      if (r.a && r.b && notableDuration(r.a.duration_ms, r.b.duration_ms)) {
        if (r.b.duration_ms > r.a.duration_ms) s.slower++;
        else s.faster++;
      }
    }
  }
  return s;
}

/** A signed difference for people: "+120 ms", "-3", "0". */
export function signed(n: number, format: (v: number) => string): string {
  if (n === 0) return '0';
  return `${n > 0 ? '+' : '-'}${format(Math.abs(n))}`;
}

/** Characters of each side a text diff reads; past it the diff is of the first this many. */
export const DIFF_CHARS = 20_000;

/**
 * An output that is a chat (messages, or one `{role, content}` message) as the text people read:
 * each message's role and words, its tool calls by name and arguments, blank lines between; null
 * for any other output.
 */
export function chatOutputText(raw: string): string | null {
  const first = raw.trimStart()[0];
  if (first !== '{' && first !== '[') return null;
  let value: Json;
  try {
    value = JSON.parse(raw) as Json;
  } catch {
    return null;
  }
  const one = value && typeof value === 'object' && !Array.isArray(value) && typeof value.role === 'string' && 'content' in value ? [value] : null;
  const messages = asChat(one ?? value);
  if (!messages) return null;
  return messages
    .map((m) => [`${m.role}:`, m.content, ...(m.toolCalls ?? []).map((c) => `-> ${c.name}(${JSON.stringify(c.arguments)})`)].filter(Boolean).join('\n'))
    .join('\n\n');
}

/**
 * A diff of two outputs: chats (both sides) as their messages' text, diffed by word like other
 * text (a one-sentence change marks that sentence, not the paragraph); other JSON pretty-printed
 * and diffed by line; long texts by line. Null when it would take too long (very large, very
 * different texts).
 */
export function diffOutputs(a: string, b: string): { changes: Change[]; cut: boolean; by: 'line' | 'word' } | null {
  const ca = chatOutputText(a);
  const cb = chatOutputText(b);
  const chat = ca !== null && cb !== null;
  const pa = chat ? null : prettyJson(a);
  const pb = chat ? null : prettyJson(b);
  const json = pa !== null && pb !== null;
  const left = chat ? ca : json ? pa : a;
  const right = chat ? cb : json ? pb : b;
  const cut = left.length > DIFF_CHARS || right.length > DIFF_CHARS;
  const l = left.slice(0, DIFF_CHARS);
  const r = right.slice(0, DIFF_CHARS);
  const by = json || l.length + r.length > 8000 ? 'line' : 'word';
  const changes = by === 'line' ? diffLines(l, r, { timeout: 500 }) : diffWordsWithSpace(l, r, { timeout: 500 });
  return changes ? { changes, cut, by } : null;
}

/** The page's state in the URL: the two trace ids and the selected aligned row. */
export interface CompareState {
  a?: string;
  b?: string;
  row?: string;
}

const ID = /^.{1,128}$/s;

export function parseCompareState(q: URLSearchParams): CompareState {
  const s: CompareState = {};
  const a = q.get('a')?.trim();
  if (a && ID.test(a)) s.a = a;
  const b = q.get('b')?.trim();
  if (b && ID.test(b)) s.b = b;
  const row = q.get('row');
  if (row && row.length <= 4096) s.row = row;
  return s;
}

export function compareQuery(s: CompareState): string {
  const text = setParams(new URLSearchParams(), s, ['a', 'b', 'row']).toString();
  return text ? `?${text}` : '';
}
