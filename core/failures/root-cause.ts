import { normalizeFailureText } from './normalize.js';

/** What failure analysis reads of a span (store/clickhouse/failure-spans-reads.ts). */
export interface FailureSpan {
  span_id: string;
  parent_span_id: string;
  name: string;
  error: boolean;
  /** The exception's message, else the status message ('' when none). */
  message: string;
  /** `exception.type` / `error.type`, null when neither is set. */
  error_type: string | null;
  start_ms: number;
}

export interface RootCause {
  span: FailureSpan;
  /** Span names from the root down to the failing span (normalized), joined by ' > '. */
  path: string;
}

/** Deepest path kept, in spans; names beyond it are left out from the top. */
const MAX_DEPTH = 32;
/** Characters of one name in a path. */
const NAME_MAX = 80;

/**
 * Where a trace failed: of its error spans, those with no failing child (an error travels up to
 * the parents; the one below is the cause), the earliest to start (ties by span id). `skipRoot`
 * leaves the trace's roots out of both the candidates and the path: a run's case root fails with
 * its case and names it, which would split every case into a group of its own. Null when no span
 * (left) failed. Parents that form a cycle end the walk.
 */
export function rootCause(spans: readonly FailureSpan[], skipRoot: boolean): RootCause | null {
  const byId = new Map(spans.map((s) => [s.span_id, s]));
  const isRoot = (s: FailureSpan) => !s.parent_span_id || !byId.has(s.parent_span_id) || s.parent_span_id === s.span_id;
  const failingParents = new Set(spans.filter((s) => s.error).map((s) => s.parent_span_id));
  let cause: FailureSpan | null = null;
  for (const s of spans) {
    if (!s.error || failingParents.has(s.span_id) || (skipRoot && isRoot(s))) continue;
    if (!cause || s.start_ms < cause.start_ms || (s.start_ms === cause.start_ms && s.span_id < cause.span_id)) cause = s;
  }
  if (!cause) return null;
  const names: string[] = [];
  const seen = new Set<string>();
  for (let s: FailureSpan | undefined = cause; s && !seen.has(s.span_id); s = byId.get(s.parent_span_id)) {
    seen.add(s.span_id);
    if (skipRoot && isRoot(s)) break;
    names.push(normalizeFailureText(s.name).slice(0, NAME_MAX));
    if (isRoot(s)) break;
  }
  return { span: cause, path: names.slice(0, MAX_DEPTH).reverse().join(' > ') };
}
