import type { Aggregation, ScoreDetail, ScorerRef } from '../model/eval-case.js';
import { cut, messageOf } from './rules/support.js';
import type { ScoreInput, ScorerRegistry } from './scorer.js';

/** At most this many evidence strings are kept per scorer verdict. */
const MAX_EVIDENCE = 50;

/**
 * Scores tolerate this much floating-point noise when compared with a minimum: the mean of
 * trials (0.6 + 0.8) / 2 must pass a 0.7 bar.
 */
const EPSILON = 1e-9;

/**
 * Runs every referenced scorer on one case execution, in parallel, each with its config parsed
 * by its own schema. A scorer that throws, returns a non-finite score, or is unknown records
 * `{score: 0, reason: 'scorer error: …'}`; the others go on (SPEC: "If a scorer throws, it
 * records a score of 0 with the error as reason"). Scores are clamped to 0..1 and evidence
 * strings cut to 200 characters. Rejects only when `signal` is aborted (the case is cancelled,
 * not scored).
 */
export async function runScorers(
  registry: ScorerRegistry,
  refs: readonly ScorerRef[],
  input: Omit<ScoreInput, 'config'>,
  signal?: AbortSignal,
): Promise<Record<string, ScoreDetail>> {
  signal?.throwIfAborted();
  const verdicts = await Promise.all(refs.map(async (ref) => [ref.name, await runOne(registry, ref, input, signal)] as const));
  signal?.throwIfAborted();
  return Object.fromEntries(verdicts);
}

async function runOne(registry: ScorerRegistry, ref: ScorerRef, input: Omit<ScoreInput, 'config'>, signal?: AbortSignal): Promise<ScoreDetail> {
  const scorer = registry.get(ref.name);
  if (!scorer) return failed(`unknown scorer '${ref.name}'`);
  const config = scorer.configSchema.safeParse(ref.config ?? {});
  if (!config.success) {
    return failed(`invalid config: ${config.error.issues.map((i) => `${i.path.length ? i.path.join('.') + ' ' : ''}${i.message}`).join('; ')}`);
  }
  try {
    return sanitize(await scorer.evaluate({ ...input, config: config.data }, signal));
  } catch (err) {
    return failed(messageOf(err));
  }
}

function failed(message: string): ScoreDetail {
  return { score: 0, reason: `scorer error: ${message}`, evidence: [] };
}

/** A scorer's verdict made safe to store: a finite score in 0..1, a string reason, short evidence. */
export function sanitize(detail: unknown): ScoreDetail {
  const d = (typeof detail === 'object' && detail !== null ? detail : {}) as Partial<Record<keyof ScoreDetail, unknown>>;
  if (typeof d.score !== 'number' || !Number.isFinite(d.score)) {
    return failed(`returned a non-finite score (${typeof d.score === 'number' ? String(d.score) : typeof d.score})`);
  }
  const evidence = Array.isArray(d.evidence) ? d.evidence.filter((e): e is string => typeof e === 'string') : [];
  return {
    score: Math.min(1, Math.max(0, d.score)),
    reason: typeof d.reason === 'string' ? d.reason : '',
    evidence: evidence.slice(0, MAX_EVIDENCE).map((e) => cut(e)),
  };
}

/**
 * One number for a case from its scorers' scores (SPEC aggregation strategies): `mean`
 * (default), `min`, `max`, or `weighted` by each ref's `weight` (default 1). No scores -> 0.
 */
export function aggregateScores(details: Record<string, ScoreDetail>, refs: readonly ScorerRef[], aggregation: Aggregation = 'mean'): number {
  const names = Object.keys(details);
  if (names.length === 0) return 0;
  const scores = names.map((name) => details[name].score);
  switch (aggregation) {
    case 'min':
      return Math.min(...scores);
    case 'max':
      return Math.max(...scores);
    case 'weighted': {
      const weightOf = new Map(refs.map((ref) => [ref.name, ref.weight ?? 1]));
      let sum = 0;
      let weights = 0;
      names.forEach((name, i) => {
        const w = weightOf.get(name) ?? 1;
        sum += w * scores[i];
        weights += w;
      });
      return weights > 0 ? sum / weights : 0;
    }
    case 'mean':
      return scores.reduce((a, b) => a + b, 0) / scores.length;
  }
}

/**
 * A case passes when every scorer's score meets its minimum: the ref's `minScore`, else
 * `minScore` (the case's or the suite's). A referenced scorer with no score fails the case.
 */
export function casePasses(details: Record<string, ScoreDetail>, refs: readonly ScorerRef[], minScore: number): boolean {
  return caseShortfall(details, refs, minScore) === null;
}

/**
 * The scorers a case falls short on, in the case's order (then any other scored name): those
 * without a score (`detail` absent) and those under their minimum. Empty when the case passes on
 * its scores.
 */
export function shortScorers(
  details: Record<string, ScoreDetail>,
  refs: readonly ScorerRef[],
  minScore: number,
): Array<{ name: string; detail: ScoreDetail | undefined; min: number }> {
  const minOf = new Map(refs.map((ref) => [ref.name, ref.minScore ?? minScore]));
  const names = new Set([...refs.map((ref) => ref.name), ...Object.keys(details)]);
  const short: Array<{ name: string; detail: ScoreDetail | undefined; min: number }> = [];
  for (const name of names) {
    const detail = Object.hasOwn(details, name) ? details[name] : undefined;
    const min = minOf.get(name) ?? minScore;
    if (!detail || detail.score + EPSILON < min) short.push({ name, detail, min });
  }
  return short;
}

/** Reasons longer than this are cut in a shortfall message (the whole reason is in `details`). */
const SHORTFALL_REASON_MAX = 300;

/**
 * Why a case fails on its scores (casePasses), in words, or null when it passes: the first scorer
 * under its minimum, with its score and reason, e.g. `scorer 'exactMatch' scored 0.2, below its
 * minimum 0.7: expected 'Paris', got 'Lyon'`, and how many more fell short.
 */
export function caseShortfall(details: Record<string, ScoreDetail>, refs: readonly ScorerRef[], minScore: number): string | null {
  const short = shortScorers(details, refs, minScore).map(({ name, detail, min }) => {
    if (!detail) return `scorer '${name}' has no score`;
    const reason = detail.reason.length > SHORTFALL_REASON_MAX ? `${detail.reason.slice(0, SHORTFALL_REASON_MAX)}...` : detail.reason;
    return `scorer '${name}' scored ${Math.round(detail.score * 1e4) / 1e4}, below its minimum ${min}${reason ? `: ${reason}` : ''}`;
  });
  if (short.length === 0) return null;
  return short.length === 1 ? short[0] : `${short[0]} (and ${short.length - 1} more scorer${short.length > 2 ? 's' : ''} below their minimum)`;
}

/**
 * Per-scorer means over repeated trials of one case. The reason and evidence are the first
 * trial's, the reason marked '(mean of N trials)'; a scorer missing from some trials is averaged
 * over the trials that have it.
 */
export function meanDetails(trials: readonly Record<string, ScoreDetail>[]): Record<string, ScoreDetail> {
  const out: Record<string, ScoreDetail> = {};
  const names = new Set(trials.flatMap((trial) => Object.keys(trial)));
  for (const name of names) {
    const seen = trials.filter((trial) => Object.hasOwn(trial, name)).map((trial) => trial[name]);
    const first = seen[0];
    if (seen.length === 1) {
      out[name] = { score: first.score, reason: first.reason, evidence: [...first.evidence] };
      continue;
    }
    const score = seen.reduce((sum, d) => sum + d.score, 0) / seen.length;
    const suffix = `(mean of ${seen.length} trials)`;
    out[name] = { score, reason: first.reason ? `${first.reason} ${suffix}` : suffix, evidence: [...first.evidence] };
  }
  return out;
}
