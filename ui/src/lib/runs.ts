/** The eval run pages' helpers: filters in the URL, numbers in words, polling, the comparison in plain words. */
import type { CaseResultView, RunStatus, RunView, RunComparison, Significance } from './types.js';
import { setParams } from './filters.js';
/** The form of a UUID (a suite id rather than a suite name): core/model/id-rules.ts. */
import { isUuid } from '../../../core/model/id-rules.js';

export { isUuid };

/** Whether a run never changes again: the model's own rule (core/model/run-status.ts, browser-safe). */
import { isFinalRunStatus as isFinal } from '../../../core/model/run-status.js';

export { isFinal };

/** GET /api/runs/{id}/status (docs/evals.md): the run view's moving parts. */
export type RunStatusView = Pick<RunView, 'id' | 'run_id' | 'status' | 'progress' | 'summary' | 'created_at' | 'started_at' | 'completed_at' | 'error'>;

type RunMovingParts = Pick<RunView, 'status' | 'progress' | 'summary' | 'started_at' | 'completed_at' | 'error'>;

/** A run (a list's row or the run page's) with the moving parts of a status answer put in. */
export function withStatus<R extends RunMovingParts>(run: R, s: RunMovingParts): R {
  return { ...run, status: s.status, progress: s.progress, summary: s.summary, started_at: s.started_at, completed_at: s.completed_at, error: s.error };
}

/** POST /api/runs/{id}/control answers 202 with the status the run moves to. */
export interface ControlAnswer {
  run_id: string;
  action: ControlAction;
  status: RunStatus;
  accepted: boolean;
}
export type ControlAction = 'pause' | 'resume' | 'cancel';

/** The actions a run in this status can take (the API answers 409 to the others). */
export function controlsFor(status: RunStatus): ControlAction[] {
  if (status === 'running' || status === 'pending') return ['pause', 'cancel'];
  if (status === 'paused') return ['resume', 'cancel'];
  return [];
}

export const ACTION_LABEL: Record<ControlAction, string> = { pause: 'Pause', resume: 'Resume', cancel: 'Cancel' };
/** What the run becomes after each action, in words. */
export const ACTION_TARGET: Record<ControlAction, RunStatus> = { pause: 'paused', resume: 'running', cancel: 'cancelled' };

export const STATUS_LABEL: Record<RunStatus, string> = {
  pending: 'pending',
  running: 'running',
  paused: 'paused',
  completed: 'completed',
  cancelled: 'cancelled',
  failed: 'failed',
};

// ---------------------------------------------------------------------------------------------
// The runs list's filters (GET /api/runs: status, suite_name, agent_version, limit, offset).

export interface RunFilters {
  status?: RunStatus;
  /** A suite's id (what the suite filter and the suite page link use), or an exact suite name as runs recorded it. */
  suite?: string;
  /** Exact agent version label. */
  version?: string;
  /** 0-based offset into the list (the API's `offset`, at most 1,000,000). */
  offset?: number;
  /** Page size 1-500; the default is 50. */
  limit?: number;
}

export const RUNS_PAGE = 50;

/** Every run status, in the order the filter lists them (STATUS_LABEL's keys: the compiler checks it names them all). */
export const RUN_STATUS_LIST = Object.keys(STATUS_LABEL) as RunStatus[];
const isStatus = (v: string | null): v is RunStatus => v !== null && Object.hasOwn(STATUS_LABEL, v);

/** Reads the filters from a query string; values the API would refuse are dropped. */
export function parseRunFilters(q: URLSearchParams): RunFilters {
  const f: RunFilters = {};
  const status = q.get('status');
  if (isStatus(status)) f.status = status;
  const suite = q.get('suite')?.trim();
  if (suite) f.suite = suite.slice(0, 512);
  const version = q.get('version')?.trim();
  if (version) f.version = version.slice(0, 512);
  const offset = Number(q.get('offset'));
  if (Number.isInteger(offset) && offset > 0 && offset <= 1_000_000) f.offset = offset;
  const limit = Number(q.get('limit'));
  if (Number.isInteger(limit) && limit >= 1 && limit <= 500 && limit !== RUNS_PAGE) f.limit = limit;
  return f;
}

/** The page's query string: only what is set, in a fixed order. */
export function runFiltersToQuery(f: RunFilters): URLSearchParams {
  const q = setParams(new URLSearchParams(), f, ['status', 'suite', 'version']);
  if (f.limit && f.limit !== RUNS_PAGE) q.set('limit', String(f.limit));
  if (f.offset) q.set('offset', String(f.offset));
  return q;
}

/** The GET /api/runs query for these filters. */
export function apiRunsQuery(f: RunFilters): URLSearchParams {
  const q = new URLSearchParams();
  q.set('limit', String(f.limit ?? RUNS_PAGE));
  q.set('offset', String(f.offset ?? 0));
  if (f.status) q.set('status', f.status);
  if (f.suite) q.set(isUuid(f.suite) ? 'suite_id' : 'suite_name', f.suite);
  if (f.version) q.set('agent_version', f.version);
  return q;
}

export const isRunFiltered = (f: RunFilters): boolean => Boolean(f.status || f.suite || f.version);

// ---------------------------------------------------------------------------------------------
// Numbers.

/** Passed cases among the judged ones (passed + failed); null before any case is judged. */
export function passRate(summary: RunView['summary']): number | null {
  const judged = summary.passed + summary.failed;
  return judged > 0 ? summary.passed / judged : null;
}

/** 0.75 -> "75%", 0.625 -> "62.5%", 2/3 -> "66.7%". */
export function formatPercent(x: number | null): string {
  if (x === null || !Number.isFinite(x)) return '-';
  const p = x * 100;
  return `${Number.isInteger(Math.round(p * 10) / 10) ? Math.round(p) : (Math.round(p * 10) / 10).toFixed(1)}%`;
}

/** A score in 0..1 with two decimals ("0.67", "1.00"); more when a small value would read as 0. */
export function formatScore(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '-';
  if (x !== 0 && Math.abs(x) < 0.01) return x.toFixed(3);
  return x.toFixed(2);
}

/** A signed difference: "+0.12", "-0.50", "0.00". */
export function formatDelta(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '-';
  const s = formatScore(Math.abs(x));
  if (Number(s) === 0) return s;
  return `${x > 0 ? '+' : '-'}${s}`;
}

/** A p-value for people: "p = 0.003", "p < 0.001". */
export function formatP(p: number): string {
  if (p < 0.001) return 'p < 0.001';
  if (p >= 0.995) return 'p = 1';
  return `p = ${p < 0.01 ? p.toFixed(3) : p.toFixed(2)}`;
}

/** A run's trials as its progress bar shows them: how many ran and how many were cancelled, of all. */
export interface ProgressParts {
  ran: number;
  cancelled: number;
  total: number;
  /** Shares of the bar, 0..1 each, their sum at most 1. */
  ranShare: number;
  cancelledShare: number;
}

/**
 * The progress bar's parts. `completed` counts every recorded trial, cancelled ones included (a
 * cancelled run records each trial it did not run), so a run cancelled after 2 of 10 trials is
 * 2 ran and 8 cancelled, never a full bar.
 */
export function progressParts(progress: { completed: number; total: number; cancelled?: number }): ProgressParts {
  const total = Math.max(0, progress.total);
  const cancelled = Math.min(Math.max(0, progress.cancelled ?? 0), progress.completed);
  const ran = Math.max(0, progress.completed - cancelled);
  const share = (n: number) => (total > 0 ? Math.min(1, n / total) : 0);
  const ranShare = share(ran);
  return { ran, cancelled, total, ranShare, cancelledShare: Math.min(1 - ranShare, share(cancelled)) };
}

/** The scorers named by a run's results or summary, in a stable order (first seen). */
export function scorerNames(
  summaryScores: Record<string, number>,
  results: ReadonlyArray<{ scores: Record<string, number>; details: Record<string, unknown> }>,
): string[] {
  const names = new Set(Object.keys(summaryScores));
  for (const r of results) {
    for (const k of Object.keys(r.scores)) names.add(k);
    for (const k of Object.keys(r.details)) names.add(k);
  }
  return [...names];
}

// ---------------------------------------------------------------------------------------------
// The comparison.

/**
 * The overall result as a sentence, e.g. "The candidate scores 0.12 higher on average (95% CI
 * 0.05 to 0.19); this difference is statistically significant (p = 0.003)."
 */
export function describeSignificance(c: Pick<RunComparison, 'overall_delta' | 'significance'>): string {
  const s: Significance = c.significance;
  const d = c.overall_delta;
  if (s.n === 0) return 'No case was scored in both runs, so there is nothing to compare yet.';
  const size = formatScore(Math.abs(d));
  const direction =
    Number(size) === 0 ? 'The candidate scores the same as the baseline on average' : `The candidate scores ${size} ${d > 0 ? 'higher' : 'lower'} on average`;
  const ci = s.ci95 ? ` (95% CI ${formatScore(s.ci95[0])} to ${formatScore(s.ci95[1])})` : '';
  const over = ` over ${s.n} paired ${s.n === 1 ? 'case' : 'cases'}`;
  let verdict: string;
  if (!s.conclusive) verdict = `too few cases changed to tell whether this is more than noise (${s.note})`;
  else if (s.p_value === null) verdict = 'no case changed, so there is no difference to test';
  else if (s.significant) verdict = `this difference is statistically significant (${formatP(s.p_value)})`;
  else verdict = `this difference is not statistically significant (${formatP(s.p_value)}, at alpha ${s.alpha}); it may be noise`;
  return `${direction}${over}${ci}; ${verdict}.`;
}

/** Per scorer: how many case scores regressed and improved beyond the threshold. */
export function changesByScorer(c: Pick<RunComparison, 'regressions' | 'improvements'>): Array<{ scorer: string; regressions: number; improvements: number }> {
  const by = new Map<string, { scorer: string; regressions: number; improvements: number }>();
  const get = (scorer: string) => by.get(scorer) ?? by.set(scorer, { scorer, regressions: 0, improvements: 0 }).get(scorer)!;
  for (const r of c.regressions) get(r.scorer).regressions++;
  for (const r of c.improvements) get(r.scorer).improvements++;
  return [...by.values()].sort((a, b) => a.scorer.localeCompare(b.scorer));
}

/** Why the comparison may not say what it seems to: different suites, runs not finished. */
export function comparisonWarnings(baseline: RunView, candidate: RunView, sameSuiteVersion: boolean | null): string[] {
  const out: string[] = [];
  const suite = (r: RunView) => (r.suite_name ? `suite "${r.suite_name}" version ${r.suite_version ?? '?'}` : 'an inline dataset (no suite)');
  if (baseline.suite_name !== candidate.suite_name || (baseline.suite_name === null) !== (candidate.suite_name === null)) {
    out.push(
      `The runs are of different suites: the baseline ran ${suite(baseline)}, the candidate ${suite(candidate)}. Cases are matched by name; cases only one run has are listed apart.`,
    );
  } else if (sameSuiteVersion === false) {
    out.push(
      `The runs ran different versions of suite "${baseline.suite_name}" (${baseline.suite_version ?? '?'} and ${candidate.suite_version ?? '?'}): cases are matched by name, and a case may have changed between versions.`,
    );
  }
  for (const [role, r] of [
    ['baseline', baseline],
    ['candidate', candidate],
  ] as const) {
    if (r.status === 'completed') continue;
    if (isFinal(r.status))
      out.push(
        `The ${role} run is ${r.status}: only its cases that passed or failed (${r.summary.passed + r.summary.failed} of ${r.summary.total_cases}) are compared.`,
      );
    else
      out.push(
        `The ${role} run is still ${r.status} (${r.progress.completed} of ${r.progress.total} done): the comparison covers only the cases it has recorded so far.`,
      );
  }
  return out;
}

/**
 * The pair to compare when the URL names none: the newest run that has an older run of the same
 * suite, against that older run; else the newest two runs. Finished runs are preferred.
 */
export function defaultPair(runs: readonly RunView[]): { baseline: string; candidate: string } | null {
  // `runs` is newest first (GET /api/runs).
  const pools = [runs.filter((r) => r.status === 'completed'), runs.filter((r) => isFinal(r.status)), [...runs]];
  for (const pool of pools) {
    for (let i = 0; i < pool.length; i++) {
      const cand = pool[i];
      if (!cand.suite_name) continue;
      const base = pool.slice(i + 1).find((r) => r.suite_name === cand.suite_name);
      if (base) return { baseline: base.id, candidate: cand.id };
    }
  }
  for (const pool of pools) if (pool.length >= 2) return { baseline: pool[1].id, candidate: pool[0].id };
  return null;
}

/** How a run is named in a select: "v2 · suite weather v1 · completed · 2026-03-04 14:05". */
export function runLabel(r: RunView, time: (iso: string) => string): string {
  const what = r.suite_name ? `${r.suite_name} v${r.suite_version ?? '?'}` : (r.name ?? 'dataset');
  return `${r.agent_version} · ${what} · ${r.status} · ${time(r.created_at)}`;
}

/** A case value (input, expected, output) as text: a string as it is, anything else as its JSON; nothing for null. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A case's value on one line for a table cell: line breaks and runs of spaces as one space, cut at `max` characters. */
export function valuePreview(v: unknown, max = 160): string {
  const line = valueText(v).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * The run to hold a run against: of the same suite's runs (newest first, as GET /api/runs lists
 * them), the newest completed one created before it; null for a run of no suite or a suite's first.
 */
export function previousRunOf(run: RunView, suiteRuns: readonly RunView[]): RunView | null {
  if (!run.suite_id && !run.suite_name) return null;
  return suiteRuns.find((r) => r.id !== run.id && r.status === 'completed' && r.created_at < run.created_at) ?? null;
}

/** Each case's average score by case name, of the cases that were scored (passed or failed). */
export function avgByCase(results: readonly CaseResultView[]): Map<string, number> {
  return new Map(results.filter((r) => r.status === 'passed' || r.status === 'failed').map((r) => [r.case_name, r.avg_score]));
}
