import { errorMessage } from '../errors.js';
import type { ScoreDetail, ScorerRef } from '../model/eval-case.js';
import { sanitize } from '../scoring/run-scorers.js';
import type { ScoreInput, ScorerRegistry } from '../scoring/scorer.js';
import type { JudgeGeneration, JudgeHooks } from './judge.js';
import { withRetries, type RetryPolicy } from './retry.js';
import { isJudgeScorer } from './scorers.js';

/** What one judge call cost, from the price table. */
export interface JudgeCallCost {
  cost_usd: number;
  price_version: string;
}

/** The price of one judge call from the price table; null when the model is not priced. */
export type PriceJudgeCall = (generation: JudgeGeneration) => JudgeCallCost | null;

/** The reason every verdict a judge could not give starts with (counted as scorer errors). */
export const SCORER_ERROR = 'scorer error: ';

export interface JudgeRunOptions {
  signal?: AbortSignal;
  /** Asked before every call: a reason stops the judge (a run's judge budget). */
  beforeCall?: JudgeHooks['beforeCall'];
  priceJudgeCall?: PriceJudgeCall;
  /** Every call as it ends, with its price: where it is recorded. */
  onGeneration?: (generation: JudgeGeneration, cost: JudgeCallCost | null) => Promise<void>;
  /** Retries of a failed call in place (online evaluation); a run's activity is retried by Temporal instead. */
  retry?: RetryPolicy;
  /** Failures the caller retries as a whole (rejected); any other failure is the judge's 0 with the error as its reason. */
  rethrow(err: unknown): boolean;
}

/**
 * One LLM judge over one answer: the one way runs and online evaluation run a judge. A reference
 * that is not a judge, an invalid config or no answer to judge is a 0 with the reason (SPEC: a
 * scorer that cannot score scores 0); a verdict is sanitized as every scorer's is.
 */
export async function runJudge(
  registry: ScorerRegistry,
  ref: ScorerRef,
  input: Omit<ScoreInput, 'config'> | undefined,
  opts: JudgeRunOptions,
): Promise<ScoreDetail> {
  const scorer = registry.get(ref.name);
  if (!isJudgeScorer(scorer)) return { score: 0, reason: `${SCORER_ERROR}'${ref.name}' is not an LLM judge`, evidence: [] };
  const config = scorer.configSchema.safeParse(ref.config ?? {});
  if (!config.success)
    return {
      score: 0,
      reason: `${SCORER_ERROR}invalid config: ${config.error.issues.map((i) => `${i.path.join('.')} ${i.message}`.trim()).join('; ')}`,
      evidence: [],
    };
  if (!input) return { score: 0, reason: `${SCORER_ERROR}no agent answer to judge`, evidence: [] };
  const onGeneration = opts.onGeneration;
  const hooks: JudgeHooks = {
    signal: opts.signal,
    beforeCall: opts.beforeCall,
    onGeneration: onGeneration ? (generation) => onGeneration(generation, opts.priceJudgeCall?.(generation) ?? null) : undefined,
  };
  const call = () => scorer.judge({ ...input, config: config.data }, hooks, ref.name);
  try {
    return sanitize(await (opts.retry ? withRetries(call, opts.retry, opts.signal) : call()));
  } catch (err) {
    if (opts.rethrow(err)) throw err;
    return { score: 0, reason: `${SCORER_ERROR}${errorMessage(err)}`, evidence: [] };
  }
}
