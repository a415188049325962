import type { Aggregation } from '../model/eval-case.js';
import type { CaseResultView, RunCase, RunSummary, TrialRecord } from '../model/eval-run.js';
import { aggregateScores, caseShortfall, meanDetails } from '../scoring/run-scorers.js';
import { conversationShortfall } from './conversation-scoring.js';

/**
 * How stored trials become the SPEC's case results and run summary: one function each way, used
 * by the API (as results come in) and by the workflow's last step (the stored summary).
 */

export interface RunScoring {
  aggregation: Aggregation;
  minScore: number;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** A case's view from its trials: scores are the mean over the trials that ran (not cancelled). */
export function caseResultView(runCase: RunCase, trials: Array<TrialRecord & { trial: number }>, scoring: RunScoring): CaseResultView {
  const ran = trials.filter((t) => t.status !== 'cancelled');
  const base = { case_index: runCase.case_index, case_name: runCase.name, trials, trace_id: trials[0]?.trace_id ?? null, output: trials[0]?.output ?? null };
  if (trials.length === 0 || (ran.length === 0 && trials.length > 0)) {
    const status = trials.length === 0 ? 'pending' : 'cancelled';
    return { ...base, status, scores: {}, avg_score: 0, passed: false, duration_ms: 0, details: {} };
  }
  const details = ran.length === 1 ? ran[0].details : meanDetails(ran.map((t) => t.details));
  const avg = ran.length === 1 ? ran[0].avg_score : aggregateScores(details, runCase.scorers, scoring.aggregation);
  const errors = ran.filter((t) => t.error).map((t) => t.error!);
  const minScore = runCase.min_score ?? scoring.minScore;
  // SPEC: a failed case carries an error message: the agent's error, else why its scores fall short.
  // A conversation's case-level scores are those its end scorers gave (conversation-scoring.ts),
  // and each of its turns must pass too.
  const conversation = Boolean(runCase.turns || runCase.simulation);
  const shortfall = conversation
    ? (caseShortfall(
        details,
        runCase.scorers.filter((ref) => Object.hasOwn(details, ref.name)),
        minScore,
      ) ??
      ran.map((t) => conversationShortfall(runCase, t.turns ?? [], minScore)).find((s) => s !== null) ??
      (ran.some((t) => !t.passed) ? 'a trial of the conversation failed' : null))
    : caseShortfall(details, runCase.scorers, minScore);
  const passed = errors.length === 0 && shortfall === null;
  const scores = Object.fromEntries(Object.entries(details).map(([name, d]) => [name, round(d.score)]));
  return {
    ...base,
    status: passed ? 'passed' : 'failed',
    scores,
    avg_score: round(avg),
    passed,
    duration_ms: round(ran.reduce((sum, t) => sum + t.duration_ms, 0) / ran.length),
    details,
    ...(errors.length ? { error: errors[0] } : shortfall !== null ? { error: shortfall } : {}),
  };
}

/** The run summary over its case views; `avg_score` weighs each case by its weight. */
export function summarize(cases: Array<{ view: CaseResultView; weight: number }>, durationMs: number): RunSummary {
  let passed = 0;
  let failed = 0;
  let cancelled = 0;
  let weighted = 0;
  let weights = 0;
  const perScorer = new Map<string, { sum: number; n: number }>();
  for (const { view, weight } of cases) {
    if (view.status === 'passed') passed++;
    else if (view.status === 'failed') failed++;
    else if (view.status === 'cancelled') cancelled++;
    if (view.status !== 'passed' && view.status !== 'failed') continue;
    weighted += view.avg_score * weight;
    weights += weight;
    for (const [name, score] of Object.entries(view.scores)) {
      const acc = perScorer.get(name) ?? { sum: 0, n: 0 };
      acc.sum += score;
      acc.n++;
      perScorer.set(name, acc);
    }
  }
  return {
    total_cases: cases.length,
    passed,
    failed,
    cancelled,
    avg_score: weights > 0 ? round(weighted / weights) : 0,
    scores_by_scorer: Object.fromEntries([...perScorer].map(([name, acc]) => [name, round(acc.sum / acc.n)])),
    duration_ms: Math.max(0, Math.round(durationMs)),
  };
}
