import type { CaseComparison, CaseSideDetail, RunComparison, ScoreChange } from '../../core/evals/compare.js';
import { clip, MAX_ANSWER_CHARS } from './tool-kit.js';

/** How much of a comparison one `compare_runs` answer carries. */
export interface CondenseOptions {
  /** Changed cases in this answer (the worst first). */
  limit: number;
  /** Changed cases to skip: the previous answer's `next_offset`. */
  offset: number;
  /** Characters of each text (input, expected, output, error, reason) at most. */
  textChars: number;
  /** Characters of the whole answer at most; texts are cut further, then cases left for the next page, to stay below. */
  maxChars?: number;
}

/** Worst first: regressed and mixed cases before improved ones, each by its average score's drop. */
const CHANGE_ORDER: Record<string, number> = { regressed: 0, mixed: 1, improved: 2 };

const fmt = (n: number | null, digits = 2) => (n === null ? 'unknown' : n.toFixed(digits));
const signed = (n: number, digits = 2) => `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;

/** One sentence a model can act on before reading any case. */
function summarize(cmp: RunComparison): string {
  const c = cmp.case_counts;
  const s = cmp.significance;
  const parts = [
    `${c.compared} cases compared: ${c.regressed} regressed, ${c.improved} improved, ${c.mixed} mixed, ${c.unchanged} unchanged`,
    `${cmp.regressions.length} scorer regressions and ${cmp.improvements.length} improvements beyond ${cmp.threshold}`,
    `mean score change ${signed(s.mean_delta, 3)} (${s.significant ? 'significant' : 'not significant'}, p=${fmt(s.p_value, 3)})`,
  ];
  const t = cmp.totals;
  if (t.mean_duration_delta_ms !== null) parts.push(`mean latency ${signed(t.mean_duration_delta_ms, 0)} ms`);
  if (t.cost_delta_usd !== null) parts.push(`cost ${signed(t.cost_delta_usd, 4)} USD over ${t.priced_cases} priced cases`);
  if (cmp.only_in_baseline.length + cmp.only_in_candidate.length > 0)
    parts.push(`${cmp.only_in_baseline.length} cases only in the baseline, ${cmp.only_in_candidate.length} only in the candidate`);
  return `${cmp.passed ? 'PASSED' : 'FAILED'}: ${parts.join('; ')}.`;
}

/** Per scorer: how many cases it regressed and improved on, and its mean change over those. */
function scorerSummary(cmp: RunComparison) {
  const by = new Map<string, { scorer: string; regressed: number; improved: number; deltas: number[] }>();
  const add = (changes: ScoreChange[], key: 'regressed' | 'improved') => {
    for (const ch of changes) {
      const entry = by.get(ch.scorer) ?? { scorer: ch.scorer, regressed: 0, improved: 0, deltas: [] };
      entry[key] += 1;
      entry.deltas.push(ch.delta);
      by.set(ch.scorer, entry);
    }
  };
  add(cmp.regressions, 'regressed');
  add(cmp.improvements, 'improved');
  return [...by.values()]
    .map(({ deltas, ...rest }) => ({ ...rest, mean_delta_of_changes: Number((deltas.reduce((a, b) => a + b, 0) / deltas.length).toFixed(4)) }))
    .sort((a, b) => b.regressed - a.regressed || a.scorer.localeCompare(b.scorer));
}

const text = (v: unknown, max: number) => (v === undefined || v === null ? null : clip(typeof v === 'string' ? v : JSON.stringify(v), max));

/** A changed case's side: its texts and each scorer's score and reason, cut to `max` characters each. */
function side(d: CaseSideDetail | undefined, max: number) {
  if (!d) return null;
  return {
    input: text(d.input, max),
    expected: text(d.expected, max),
    output: text(d.output, max),
    error: d.error === null ? null : clip(d.error, max),
    scorers: Object.fromEntries(
      Object.entries(d.details).map(([name, raw]) => {
        const v = (raw ?? {}) as { score?: unknown; reason?: unknown };
        return [name, { score: typeof v.score === 'number' ? v.score : null, reason: typeof v.reason === 'string' ? clip(v.reason, max) : null }];
      }),
    ),
  };
}

function changedCase(c: CaseComparison, changes: Map<string, ScoreChange[]>, max: number) {
  return {
    case_name: clip(c.case_name, 200),
    change: c.change,
    baseline_score: c.baseline_score,
    candidate_score: c.candidate_score,
    delta: c.delta,
    scorer_changes: (changes.get(c.case_name) ?? [])
      .map((s) => ({ scorer: s.scorer, baseline: s.baseline_score, candidate: s.candidate_score, delta: s.delta }))
      .sort((a, b) => a.delta - b.delta),
    baseline_trace_id: c.baseline_case.trace_id,
    candidate_trace_id: c.candidate_case.trace_id,
    duration_delta_ms: c.duration_delta_ms,
    cost_delta_usd: c.cost_delta_usd,
    first_divergent_turn: c.conversation?.first_divergence ?? null,
    baseline: side(c.baseline_detail, max),
    candidate: side(c.candidate_detail, max),
  };
}

/**
 * A run comparison condensed for a model's context: a sentence, the counts, the scorers that
 * moved, and a page of the changed cases (worst first) with both runs' texts; unchanged cases
 * are counted, not listed. The answer stays under `maxChars` as whole JSON: texts are cut
 * shorter first, then cases are left for the next page (`next_offset`).
 */
export function condenseComparison(cmp: RunComparison, opts: CondenseOptions) {
  const maxChars = opts.maxChars ?? MAX_ANSWER_CHARS - 1_000;
  const changed = cmp.cases
    .filter((c) => c.change !== 'unchanged')
    .sort((a, b) => (CHANGE_ORDER[a.change] ?? 3) - (CHANGE_ORDER[b.change] ?? 3) || a.delta - b.delta || a.case_name.localeCompare(b.case_name));
  const changes = new Map<string, ScoreChange[]>();
  for (const ch of [...cmp.regressions, ...cmp.improvements]) changes.set(ch.case_name, [...(changes.get(ch.case_name) ?? []), ch]);
  const head = {
    summary: summarize(cmp),
    baseline: cmp.baseline,
    candidate: cmp.candidate,
    passed: cmp.passed,
    overall_delta: cmp.overall_delta,
    threshold: cmp.threshold,
    significance: cmp.significance,
    case_counts: cmp.case_counts,
    totals: cmp.totals,
    same_suite_version: cmp.same_suite_version,
    scorers: scorerSummary(cmp),
    only_in_baseline: { count: cmp.only_in_baseline.length, first: cmp.only_in_baseline.slice(0, 20).map((n) => clip(n, 200)) },
    only_in_candidate: { count: cmp.only_in_candidate.length, first: cmp.only_in_candidate.slice(0, 20).map((n) => clip(n, 200)) },
    changed_total: changed.length,
  };
  const build = (count: number, chars: number) => {
    const page = changed.slice(opts.offset, opts.offset + count);
    const end = opts.offset + page.length;
    return { ...head, offset: opts.offset, next_offset: end < changed.length ? end : null, changed_cases: page.map((c) => changedCase(c, changes, chars)) };
  };
  let count = opts.limit;
  let chars = opts.textChars;
  let out = build(count, chars);
  while (JSON.stringify(out, null, 1).length > maxChars && (chars > 100 || count > 1)) {
    if (chars > 100) chars = Math.max(100, Math.floor(chars / 2));
    else count -= 1;
    out = build(count, chars);
  }
  return out;
}
