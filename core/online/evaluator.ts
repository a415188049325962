import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { pgSafeText } from '../model/pg-json.js';
import type { Score } from '../model/score.js';
import type { ScorerRegistry } from '../scoring/scorer.js';
import type { OnlineTraceReads, TraceForScoring } from '../store/online-traces.js';
import type { ClaimedEvaluation, OnlineEvalStore } from '../store/online-evals.js';
import { semaphore } from '../os/semaphore.js';
import { scanDueRules } from './rule-scan.js';
import { retryDelayMs, SCORE_TRACE_ATTEMPTS, SCORE_TRACE_TIMEOUT_MS } from './score-policy.js';
import { scoreTrace, type ScoreTraceDeps, type TraceScoring } from './score-trace.js';
import { createSessionDrain } from './session-evaluations.js';

/**
 * The online evaluator (docs/online-evals.md, "How rules run"): runs in every process with the
 * worker role, beside the alert evaluator, on the two stores only. Two loops:
 *
 * - scan: claims due rules (one scanner per rule at a time), reads each rule's next traces past
 *   its watermark from the analytical store, decides the sample, and in one PostgreSQL statement
 *   records the sampled traces as pending evaluations (primary key (rule, trace): once each) and
 *   moves the watermark;
 * - score: leases due evaluations, scores each trace with the rule's scorers, writes the scores
 *   (deterministic ids) and then marks the evaluations done under their lease.
 *
 * Session rules (docs/online-evals.md, "Session rules") go through the same loops: their scan
 * takes idle sessions instead of quiet traces (rule-scan.ts), and their evaluations, one per
 * (rule, session, generation), are scored by session-evaluations.ts.
 *
 * A worker that dies leaves its leases to expire (its heartbeat stops); any worker then takes the
 * evaluations again, and the scores they write have the same ids, so each (trace, rule) is
 * recorded once and none is lost.
 */

export interface OnlineEvaluatorDeps extends ScoreTraceDeps {
  store: OnlineEvalStore;
  traces: OnlineTraceReads;
  /** The score store's idempotent write (by score id). */
  writeScores(projectId: string, scores: Score[]): Promise<void>;
  /** Writes a judge's trace (a JSON ingest body) through the write path. */
  writeTrace(projectId: string, body: Record<string, unknown>): Promise<void>;
  /** The scorers a project's rules may name: the process's, plus the project's HTTP custom scorers. */
  registryFor(projectId: string): Promise<ScorerRegistry>;
  logger: Logger;
  /** How often each loop looks for work when it found none. */
  tickMs: number;
  /** Traces one scan of one rule reads at most. */
  scanBatch: number;
  /** Traces scored at once by this worker (each with all its rule's scorers: judges' and HTTP scorers' calls in flight). */
  concurrency: number;
  /** How long a claimed evaluation stays this worker's without a heartbeat. */
  leaseMs: number;
  /** Final evaluations of traces older than this are deleted (the traces are gone too). */
  retentionDays: number;
  /** Time-out of one attempt at scoring a trace: the SPEC's score trace time-out (10 minutes) unless a test shortens it. */
  scoreTimeoutMs?: number;
  /** Grace given to evaluations under way when the evaluator stops, before they are aborted and handed back. */
  stopGraceMs?: number;
}

export interface OnlineEvaluator {
  /** One pass of each loop: scan every due rule, then score until nothing is due (tests drive it directly). */
  tick(): Promise<void>;
  /** Stops both loops; evaluations under way get a grace period, then are handed back undone. */
  stop(): Promise<void>;
}

/** The evaluator without its timers: the loops' single passes. */
export interface OnlineEvaluatorPasses {
  /** Scans every due rule (and purges old evaluations, hourly); the number of rules scanned. */
  scan(): Promise<number>;
  /** Scores what is due until nothing is; the number of evaluations taken. */
  drain(): Promise<number>;
  tick(): Promise<void>;
  /**
   * Claims nothing more; scoring under way is aborted after `stopGraceMs` and handed back
   * (resolves when it is): call it, then wait for the passes running.
   */
  close(): Promise<void>;
}

/** SPEC "Activity time-outs and retries", score trace: 10 minutes, 3 retries, 2 s to 1 min apart (score-policy.ts). */
export { retryDelayMs, SCORE_TRACE_ATTEMPTS, SCORE_TRACE_TIMEOUT_MS };

/**
 * Evaluations are leased and their traces read in batches of about this many (one pair of
 * analytical-store queries per batch, whatever its size), and a worker holds at most two such
 * batches beyond the ones it scores: one read while the other is scored (docs/benchmarks.md).
 */
const READ_BATCH = 64;
/** Scores and records are written in batches: at most this many, or after this wait. */
const FLUSH = { maxScores: 256, waitMs: 200 } as const;
/** Final evaluations past retention are purged this often. */
const PURGE_EVERY_MS = 3600_000;
/** A project's registry (its HTTP custom scorers) is read again after this long. */
const REGISTRY_TTL_MS = 30_000;

interface Scored {
  claim: ClaimedEvaluation;
  result: TraceScoring;
}

/** The evaluator without its timers. */
export function createOnlineEvaluator(deps: OnlineEvaluatorDeps): OnlineEvaluatorPasses {
  const { store, logger } = deps;
  const scoreTimeoutMs = deps.scoreTimeoutMs ?? SCORE_TRACE_TIMEOUT_MS;
  /** Set by close(): nothing more is claimed. */
  let closing = false;
  /** Aborted once the grace after close() is over: scoring under way stops and is handed back. */
  const stopping = new AbortController();
  /** Evaluations leased and not yet finished, failed or handed back, by lease. */
  const held = new Map<string, number>();
  const registries = new Map<string, { at: number; registry: Promise<ScorerRegistry> }>();
  let buffer: Scored[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();

  const scoring = semaphore(deps.concurrency);
  const hold = (lease: string, n: number) => held.set(lease, (held.get(lease) ?? 0) + n);
  const letGo = (lease: string) => {
    const left = (held.get(lease) ?? 1) - 1;
    if (left > 0) held.set(lease, left);
    else held.delete(lease);
  };

  function registryFor(projectId: string): Promise<ScorerRegistry> {
    const cached = registries.get(projectId);
    if (cached && Date.now() - cached.at < REGISTRY_TTL_MS) return cached.registry;
    const registry = deps.registryFor(projectId);
    registries.set(projectId, { at: Date.now(), registry });
    registry.catch(() => registries.delete(projectId));
    return registry;
  }

  const scan = () => scanDueRules(deps, () => closing);

  // ---- score

  async function attemptFailed(claim: ClaimedEvaluation, err: unknown): Promise<void> {
    const last = claim.attempt >= SCORE_TRACE_ATTEMPTS;
    const message = pgSafeText(errorMessage(err).slice(0, 1000));
    logger.warn(
      { err, rule_id: claim.rule_id, trace_id: claim.trace_id, attempt: claim.attempt },
      last ? 'online evaluation failed; giving up' : 'online evaluation failed; will retry',
    );
    try {
      await store.evaluations.trace.fail(claim, message, last ? null : retryDelayMs(claim.attempt));
    } catch (recordErr) {
      // The metadata store is down: the lease runs out and the evaluation is taken again.
      logger.warn({ err: recordErr, rule_id: claim.rule_id, trace_id: claim.trace_id }, 'recording an online evaluation failure failed');
    }
  }

  async function flush(): Promise<void> {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const batch = buffer;
    buffer = [];
    if (batch.length === 0) return;
    const byProject = new Map<string, Scored[]>();
    for (const s of batch) byProject.set(s.claim.project_id, [...(byProject.get(s.claim.project_id) ?? []), s]);
    const written: Scored[] = [];
    await Promise.all(
      [...byProject].map(async ([projectId, items]) => {
        try {
          await deps.writeScores(
            projectId,
            items.flatMap((s) => s.result.scores),
          );
          written.push(...items);
        } catch (err) {
          await Promise.all(items.map((s) => attemptFailed(s.claim, err)));
        }
      }),
    );
    try {
      await store.evaluations.trace.finish(
        written.map(({ claim, result }) => ({
          claim,
          scores: result.records,
          errors: result.errors,
          judgeTokens: result.judgeTokens,
          costUsd: result.costUsd,
        })),
      );
    } catch (err) {
      // Scores are stored (idempotently); the leases run out and the evaluations are scored again.
      logger.warn({ err, evaluations: written.length }, 'recording online evaluations failed; they will be scored again');
    }
    for (const s of batch) letGo(s.claim.lease);
  }

  /** Flushes run one after another; one that fails leaves its evaluations' leases to run out. */
  function scheduleFlush(): Promise<void> {
    flushing = flushing.then(flush).catch((err: unknown) => logger.warn({ err }, 'flushing online evaluations failed'));
    return flushing;
  }

  function queueFlush(scored: Scored): void {
    buffer.push(scored);
    if (buffer.length >= FLUSH.maxScores) void scheduleFlush();
    else
      flushTimer ??= setTimeout(() => {
        void scheduleFlush();
      }, FLUSH.waitMs);
  }

  async function evaluate(claim: ClaimedEvaluation, trace: TraceForScoring | undefined): Promise<void> {
    if (claim.attempt > SCORE_TRACE_ATTEMPTS) {
      // Earlier attempts were cut short (their workers died): no more tries.
      await attemptFailed(claim, new Error(`no attempt finished in ${SCORE_TRACE_ATTEMPTS} tries (the workers stopped mid-evaluation)`));
      letGo(claim.lease);
      return;
    }
    if (!trace) {
      await attemptFailed(claim, new Error(`trace ${claim.trace_id} not found in the analytical store`));
      letGo(claim.lease);
      return;
    }
    const registry = registryFor(claim.project_id);
    await scoring.acquire();
    const signal = AbortSignal.any([AbortSignal.timeout(scoreTimeoutMs), stopping.signal]);
    try {
      let result: TraceScoring;
      try {
        result = await scoreTrace(deps, await registry, claim, trace, signal);
      } finally {
        scoring.release();
      }
      await Promise.all(
        result.judgeTraces.map((body) =>
          deps
            .writeTrace(claim.project_id, body)
            .catch((err: unknown) => logger.warn({ err, rule_id: claim.rule_id, trace_id: claim.trace_id }, "writing an online judge's trace failed")),
        ),
      );
      queueFlush({ claim, result });
    } catch (err) {
      if (stopping.signal.aborted) await store.evaluations.trace.release(claim).catch(() => undefined);
      else await attemptFailed(claim, signal.aborted ? new Error(`scoring did not finish within ${scoreTimeoutMs} ms`) : err);
      letGo(claim.lease);
    }
  }

  const drainSessions = createSessionDrain({
    deps,
    registryFor,
    scoring,
    hold,
    letGo,
    closing: () => closing,
    stopping: stopping.signal,
    scoreTimeoutMs,
  });

  /** Scores what is due until nothing is, trace and session evaluations side by side; the number of evaluations taken. */
  async function drain(): Promise<number> {
    const [traces, sessions] = await Promise.all([drainTraces(), drainSessions()]);
    return traces + sessions;
  }

  /** Scores due trace evaluations until none is; the number taken. */
  async function drainTraces(): Promise<number> {
    let taken = 0;
    const maxHeld = deps.concurrency + 2 * READ_BATCH;
    let running = 0;
    const inflight = new Set<Promise<void>>();
    // One read at a time: the analytical store runs concurrent reads no faster, and the next
    // batch's claim (PostgreSQL) overlaps this one's read.
    let reading: Promise<unknown> = Promise.resolve();
    let freed: (() => void) | undefined;
    const done = () => {
      running--;
      freed?.();
    };
    while (!closing) {
      // Claim again once a batch's room is free, so batches stay large (one read each).
      while (maxHeld - running < Math.min(READ_BATCH, maxHeld)) await new Promise<void>((resolve) => (freed = resolve));
      if (closing) break;
      const claims = await store.evaluations.trace.claim(Math.min(maxHeld - running, READ_BATCH), deps.leaseMs);
      if (claims.length === 0) break;
      taken += claims.length;
      running += claims.length;
      hold(claims[0].lease, claims.length);
      const byProject = new Map<string, ClaimedEvaluation[]>();
      for (const c of claims) byProject.set(c.project_id, [...(byProject.get(c.project_id) ?? []), c]);
      for (const [projectId, group] of byProject) {
        const p: Promise<void> = (async () => {
          let traces: Map<string, TraceForScoring>;
          try {
            const read = reading.then(() =>
              deps.traces.tracesForScoring(
                projectId,
                group.map((c) => c.trace_id),
              ),
            );
            reading = read.catch(() => undefined);
            traces = await read;
          } catch (err) {
            await Promise.all(
              group.map(async (c) => {
                await attemptFailed(c, err);
                letGo(c.lease);
                done();
              }),
            );
            return;
          }
          await Promise.all(group.map((c) => evaluate(c, traces.get(c.trace_id)).finally(done)));
        })().finally(() => inflight.delete(p));
        inflight.add(p);
      }
    }
    await Promise.all(inflight);
    await scheduleFlush();
    return taken;
  }

  let lastPurge = 0;
  async function purge(): Promise<void> {
    if (Date.now() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = Date.now();
    const n = await store.purgeFinished(Date.now() - deps.retentionDays * 86_400_000);
    if (n > 0) logger.info({ deleted: n }, 'purged online evaluations past retention');
  }

  const heartbeat = setInterval(
    () => {
      if (held.size === 0) return;
      store.renewLeases([...held.keys()], deps.leaseMs).catch((err: unknown) => logger.warn({ err }, 'renewing online evaluation leases failed'));
    },
    Math.max(50, Math.floor(deps.leaseMs / 3)),
  );
  heartbeat.unref();

  return {
    async scan() {
      await purge().catch((err: unknown) => logger.warn({ err }, 'purging online evaluations failed'));
      return scan();
    },
    drain,
    async tick() {
      await scan();
      await drain();
    },
    async close() {
      closing = true;
      const grace = setTimeout(() => stopping.abort(), deps.stopGraceMs ?? 5000);
      grace.unref();
      // Evaluations under way either finish within the grace or see the abort and hand themselves back.
      while (held.size > 0 && !stopping.signal.aborted) await sleep(20);
      stopping.abort();
      clearTimeout(grace);
      clearInterval(heartbeat);
    },
  };
}

/**
 * Starts both loops: scanning every `tickMs`, and scoring whenever something is due (looking
 * again every `tickMs` when nothing was). Each pass starts after the previous one ended.
 */
export function startOnlineEvaluator(deps: OnlineEvaluatorDeps): OnlineEvaluator {
  const evaluator = createOnlineEvaluator(deps);
  let stopped = false;
  const wake = new AbortController();
  const loop = async (name: string, pass: () => Promise<number>, busyAgain: boolean) => {
    while (!stopped) {
      let worked = 0;
      try {
        worked = await pass();
      } catch (err) {
        deps.logger.warn({ err }, `online evaluator ${name} failed`);
      }
      if (stopped) break;
      if (busyAgain && worked > 0) continue;
      await sleep(deps.tickMs, undefined, { signal: wake.signal }).catch(() => undefined);
    }
  };
  const loops = Promise.all([loop('scan', () => evaluator.scan(), false), loop('scoring', () => evaluator.drain(), true)]);
  deps.logger.info({ tickMs: deps.tickMs, concurrency: deps.concurrency }, 'online evaluator started');
  return {
    tick: () => evaluator.tick(),
    async stop() {
      stopped = true;
      wake.abort();
      await evaluator.close();
      await loops;
    },
  };
}
