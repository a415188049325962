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

/** What a trace rule's and a session rule's scans share: the batch read, each item's id and position. */
interface ScanRead<T> {
  items: T[];
  untilMs: number;
  nextStoredMs: number | null;
}

/**
 * The scan's outcome: the sampled items, how many the sample left out, and where the watermark
 * goes. A full batch stops at its last item; otherwise everything stored up to the scan's bound was read.
 */
function decide<T extends { stored_ms: number }>(claim: ClaimedScan, read: ScanRead<T>, idOf: (item: T) => string, tickMs: number) {
  const wm = claim.watermark;
  const sampled = read.items.filter((item) => isSampled(claim.id, idOf(item), claim.sample_rate));
  const full = read.nextStoredMs !== null;
  const last = read.items.at(-1);
  const watermark =
    full && last ? { storedMs: last.stored_ms, traceId: idOf(last) } : read.untilMs > wm.storedMs ? { storedMs: read.untilMs, traceId: null } : wm;
  return { sampled, skipped: read.items.length - sampled.length, watermark, backlogStoredMs: read.nextStoredMs, nextScanInMs: full ? 0 : tickMs };
}

/**
 * One rule's scan. A trace rule's takes the traces quiet for its delay; a session rule's
 * (docs/online-evals.md, "Session rules") the sessions idle for its idle time, sampled per session
 * (every generation of a session is sampled alike), each recorded as the rule's next generation
 * of it where one is due (the store decides, under the claim). Positions of a session rule's
 * watermark name session ids.
 */
async function scanRule(deps: OnlineEvaluatorDeps, claim: ClaimedScan): Promise<void> {
  const query = { after: claim.watermark, sinceMs: claim.since_ms, quietMs: claim.delay_seconds * 1000, limit: deps.scanBatch };
  let committed: boolean;
  if (claim.target === 'session') {
    const { sessions, ...batch } = await deps.traces.nextSessions(claim.project_id, claim.filter, query);
    committed = await deps.store.commitSessionScan(
      claim,
      decide(claim, { ...batch, items: sessions }, (s) => s.session_id, deps.tickMs),
    );
  } else {
    const { traces, ...batch } = await deps.traces.nextTraces(claim.project_id, claim.filter, query);
    committed = await deps.store.commitScan(
      claim,
      decide(claim, { ...batch, items: traces }, (t) => t.trace_id, deps.tickMs),
    );
  }
  if (!committed) deps.logger.debug({ rule_id: claim.id }, 'online rule scan discarded: the rule changed or was claimed again meanwhile');
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
