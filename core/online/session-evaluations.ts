import { errorMessage } from '../errors.js';
import { pgSafeText } from '../model/pg-json.js';
import type { Semaphore } from '../os/semaphore.js';
import type { ScorerRegistry } from '../scoring/scorer.js';
import type { ClaimedSessionEvaluation } from '../store/online-evals.js';
import type { OnlineEvaluatorDeps } from './evaluator.js';
import { retryDelayMs, SCORE_TRACE_ATTEMPTS } from './score-policy.js';
import { scoreSession } from './score-session.js';

/**
 * The evaluator's scoring of session evaluations (docs/online-evals.md, "Session rules"), beside
 * its scoring of traces and under the same rules: leased evaluations (the heartbeat renews them),
 * the score-trace policy per attempt (10 minutes, 3 retries), scores written with deterministic
 * ids before the evaluation is marked done under its lease, and on stop a grace period, then the
 * evaluations under way handed back.
 */

/** What the session pass shares with the evaluator that runs it. */
export interface SessionPassContext {
  deps: OnlineEvaluatorDeps;
  registryFor(projectId: string): Promise<ScorerRegistry>;
  /** The evaluator's bound on scorings under way (a session holds one place while its turns are scored). */
  scoring: Semaphore;
  hold(lease: string, n: number): void;
  letGo(lease: string): void;
  closing(): boolean;
  /** Aborted when the grace after stop is over. */
  stopping: AbortSignal;
  scoreTimeoutMs: number;
}

/** Session evaluations leased at once: each is one session read and scored whole. */
const SESSION_BATCH = 16;

/** The session pass: scores due session evaluations until none is due; the number taken. */
export function createSessionDrain(ctx: SessionPassContext): () => Promise<number> {
  const { deps } = ctx;
  const { store, logger } = deps;

  async function attemptFailed(claim: ClaimedSessionEvaluation, err: unknown): Promise<void> {
    const last = claim.attempt >= SCORE_TRACE_ATTEMPTS;
    const where = { rule_id: claim.rule_id, session_id: claim.session_id, generation: claim.generation };
    logger.warn(
      { err, ...where, attempt: claim.attempt },
      last ? 'online session evaluation failed; giving up' : 'online session evaluation failed; will retry',
    );
    try {
      await store.evaluations.session.fail(claim, pgSafeText(errorMessage(err).slice(0, 1000)), last ? null : retryDelayMs(claim.attempt));
    } catch (recordErr) {
      // The metadata store is down: the lease runs out and the evaluation is taken again.
      logger.warn({ err: recordErr, ...where }, 'recording an online session evaluation failure failed');
    }
  }

  async function evaluate(claim: ClaimedSessionEvaluation): Promise<void> {
    if (claim.attempt > SCORE_TRACE_ATTEMPTS) {
      await attemptFailed(claim, new Error(`no attempt finished in ${SCORE_TRACE_ATTEMPTS} tries (the workers stopped mid-evaluation)`));
      return;
    }
    await ctx.scoring.acquire();
    const signal = AbortSignal.any([AbortSignal.timeout(ctx.scoreTimeoutMs), ctx.stopping]);
    try {
      let result;
      try {
        const [registry, session] = await Promise.all([ctx.registryFor(claim.project_id), deps.traces.sessionForScoring(claim.project_id, claim.session_id)]);
        if (!session) throw new Error(`session ${claim.session_id} not found in the analytical store`);
        result = await scoreSession(deps, registry, claim, session, signal);
      } finally {
        ctx.scoring.release();
      }
      await Promise.all(
        result.judgeTraces.map((body) =>
          deps
            .writeTrace(claim.project_id, body)
            .catch((err: unknown) => logger.warn({ err, rule_id: claim.rule_id, session_id: claim.session_id }, "writing an online judge's trace failed")),
        ),
      );
      await deps.writeScores(claim.project_id, result.scores);
      try {
        await store.evaluations.session.finish([
          {
            claim,
            scores: result.records,
            errors: result.errors,
            judgeTokens: result.judgeTokens,
            costUsd: result.costUsd,
            turns: result.turns,
            lastTraceId: result.lastTraceId,
          },
        ]);
      } catch (err) {
        // Scores are stored (idempotently); the lease runs out and the session is scored again, with the same ids.
        logger.warn({ err, rule_id: claim.rule_id, session_id: claim.session_id }, 'recording an online session evaluation failed; it will be scored again');
      }
    } catch (err) {
      if (ctx.stopping.aborted) await store.evaluations.session.release(claim).catch(() => undefined);
      else await attemptFailed(claim, signal.aborted ? new Error(`scoring did not finish within ${ctx.scoreTimeoutMs} ms`) : err);
    }
  }

  return async function drainSessions(): Promise<number> {
    let taken = 0;
    while (!ctx.closing()) {
      const claims = await store.evaluations.session.claim(SESSION_BATCH, deps.leaseMs);
      if (claims.length === 0) break;
      taken += claims.length;
      ctx.hold(claims[0].lease, claims.length);
      await Promise.all(claims.map((c) => evaluate(c).finally(() => ctx.letGo(c.lease))));
    }
    return taken;
  };
}
