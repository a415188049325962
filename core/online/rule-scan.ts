import { errorMessage } from '../errors.js';
import { pgSafeText } from '../model/pg-json.js';
import type { ClaimedScan } from '../store/online-evals.js';
import type { OnlineEvaluatorDeps } from './evaluator.js';
import { isSampled } from './sampling.js';

/** Rules claimed for a scan at once, and scan rounds per pass (a rule with a backlog is due again at once). */
const SCAN_CLAIM_BATCH = 20;
const MAX_SCAN_ROUNDS = 20;
/** A scan still running after this is overtaken: the rule may be claimed again and the late scan is discarded. */
const SCAN_LEASE_MS = 120_000;
/** A rule whose scan failed is due again after five ticks, at most a minute. */
const SCAN_RETRY_MAX_MS = 60_000;

async function scanRule(deps: OnlineEvaluatorDeps, claim: ClaimedScan): Promise<void> {
  if (claim.target === 'session') return scanSessionRule(deps, claim);
  const { store, logger } = deps;
  const wm = claim.watermark;
  const batch = await deps.traces.nextTraces(claim.project_id, claim.filter, {
    after: wm,
    sinceMs: claim.since_ms,
    quietMs: claim.delay_seconds * 1000,
    limit: deps.scanBatch,
  });
  const sampled = batch.traces.filter((t) => isSampled(claim.id, t.trace_id, claim.sample_rate));
  const full = batch.nextStoredMs !== null;
  const last = batch.traces.at(-1);
  // A full batch stops at its last trace; otherwise everything stored up to the scan's bound was read.
  const watermark =
    full && last ? { storedMs: last.stored_ms, traceId: last.trace_id } : batch.untilMs > wm.storedMs ? { storedMs: batch.untilMs, traceId: null } : wm;
  const committed = await store.commitScan(claim, {
    sampled,
    skipped: batch.traces.length - sampled.length,
    watermark,
    backlogStoredMs: batch.nextStoredMs,
    nextScanInMs: full ? 0 : deps.tickMs,
  });
  if (!committed) logger.debug({ rule_id: claim.id }, 'online rule scan discarded: the rule changed or was claimed again meanwhile');
}

/**
 * A session rule's scan (docs/online-evals.md, "Session rules"): the sessions idle for the rule's
 * idle time past its watermark, sampled per session (the decision never changes: every
 * generation of a session is sampled alike), recorded with the watermark as the rule's next
 * generation of each where one is due (the store decides, under the claim).
 */
async function scanSessionRule(deps: OnlineEvaluatorDeps, claim: ClaimedScan): Promise<void> {
  const { store, logger } = deps;
  const wm = claim.watermark;
  const batch = await deps.traces.nextSessions(claim.project_id, claim.filter, {
    after: wm,
    sinceMs: claim.since_ms,
    quietMs: claim.delay_seconds * 1000,
    limit: deps.scanBatch,
  });
  const sampled = batch.sessions.filter((s) => isSampled(claim.id, s.session_id, claim.sample_rate));
  const full = batch.nextStoredMs !== null;
  const last = batch.sessions.at(-1);
  const watermark =
    full && last ? { storedMs: last.stored_ms, traceId: last.session_id } : batch.untilMs > wm.storedMs ? { storedMs: batch.untilMs, traceId: null } : wm;
  const committed = await store.commitSessionScan(claim, {
    sampled,
    skipped: batch.sessions.length - sampled.length,
    watermark,
    backlogStoredMs: batch.nextStoredMs,
    nextScanInMs: full ? 0 : deps.tickMs,
  });
  if (!committed) logger.debug({ rule_id: claim.id }, 'online session rule scan discarded: the rule changed or was claimed again meanwhile');
}

/**
 * Scans every due rule (docs/online-evals.md, "How rules run"): claims due rules, one scanner
 * per rule at a time, reads each rule's next traces past its watermark, decides the sample and
 * records it with the new watermark in one statement. The number of rules scanned.
 */
export async function scanDueRules(deps: OnlineEvaluatorDeps, closing: () => boolean): Promise<number> {
  const { store, logger } = deps;
  let scanned = 0;
  for (let round = 0; round < MAX_SCAN_ROUNDS && !closing(); round++) {
    const claims = await store.claimScans(SCAN_CLAIM_BATCH, SCAN_LEASE_MS);
    for (const claim of claims) {
      try {
        await scanRule(deps, claim);
        scanned++;
      } catch (err) {
        logger.warn({ err, rule_id: claim.id, project_id: claim.project_id }, 'online rule scan failed');
        await store.recordScanError(claim, pgSafeText(errorMessage(err).slice(0, 1000)), Math.min(SCAN_RETRY_MAX_MS, deps.tickMs * 5)).catch(() => undefined);
      }
    }
    if (claims.length === 0) break;
  }
  return scanned;
}
