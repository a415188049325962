import { ApplicationFailure, CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { ScoreDetail } from '../core/model/eval-case.js';
import type { AgentCall, AgentTurn, CaseRecord, CaseRun, TrialEnd, TrialRef } from './activity-types.js';
import type { ApprovalDecision, CaseOutcome, PendingApproval, RunPolicy } from './contract.js';
import { failureMessage, type RunActivities } from './activity-options.js';
import { decideConversation } from './conversation-trial.js';

/**
 * Workflow code (deterministic): one case trial's decisions. The activities call the agent, score
 * and store, and say how the trial stands (tagged: activity-types.ts); this decides every next
 * step: wait for a person's approval, call the LLM judges, score, store what the store refused,
 * record a failed or cancelled trial. Trials started before this path (no marker of
 * TRIAL_DECISIONS_PATCH in their history) finish on case-trial-v1.ts.
 */

/** The patch id (Temporal `patched()`) of this path. Never change it. */
export const TRIAL_DECISIONS_PATCH = 'trial-decisions-in-workflow';

/** What the trial's signal handlers set (evalCaseWorkflow) and its steps read. */
export interface TrialState {
  paused: boolean;
  cancelled: boolean;
  decision?: ApprovalDecision;
  /** Set while the trial waits for a person's approval (GET /api/runs/{id}/approvals reads it). */
  waiting: PendingApproval | null;
}

export interface Trial {
  acts: RunActivities;
  key: TrialRef;
  policy: RunPolicy;
  /** Cancelled by cancelSignal. */
  scope: CancellationScope;
  state: TrialState;
  startedAt: number;
  /** The agent calls made so far, and the approval asked, as they go into the record. */
  calls: AgentCall[];
  approval?: CaseRun['approval'];
  /** Waits while the run is paused, 24 hours at most (SPEC). */
  whilePaused(): Promise<void>;
}

/** The trial so far, as scoring and recording take it. */
const caseRun = (t: Trial): CaseRun => ({ ...t.key, startedAt: t.startedAt, calls: t.calls, approval: t.approval });

/**
 * Every LLM judge of a trial at once, each its own LLM call activity; a judge whose calls failed
 * through every retry scores 0 with the error as the reason (SPEC: a scorer that fails records 0).
 */
export async function judgeTrial(acts: RunActivities, run: CaseRun, judges: string[]): Promise<Record<string, ScoreDetail>> {
  const verdicts = await Promise.all(
    judges.map(async (scorer): Promise<[string, ScoreDetail]> => {
      try {
        return [scorer, await acts.llm.callJudge({ ...run, scorer })];
      } catch (err) {
        if (isCancellation(err)) throw err;
        return [scorer, { score: 0, reason: `scorer error: ${failureMessage(err)}`, evidence: [] }];
      }
    }),
  );
  return Object.fromEntries(verdicts);
}

/**
 * SPEC: a sensitive tool call waits for approvalSignal at most 7 days. Returns the person's yes;
 * a no or no answer in time fails the trial (the approval stays on its record).
 */
export async function awaitApproval(t: Trial, asked: { tool: string; reason?: string | null }): Promise<ApprovalDecision> {
  const { state, policy } = t;
  state.waiting = { case_index: t.key.caseIndex, trial: t.key.trial, tool: asked.tool, reason: asked.reason ?? null, since: Date.now() };
  const answered = await condition(() => state.decision !== undefined, policy.approvalMaxMs).finally(() => (state.waiting = null));
  const decision = state.decision;
  t.approval = { tool: asked.tool, approved: answered && decision!.approved, comment: decision?.comment, by: decision?.by };
  if (!answered) throw ApplicationFailure.nonRetryable(`approval for tool '${asked.tool}' was not given within ${policy.approvalMaxMs} ms`, 'ApprovalTimeout');
  if (!decision!.approved)
    throw ApplicationFailure.nonRetryable(`approval for tool '${asked.tool}' was denied${decision!.comment ? `: ${decision!.comment}` : ''}`, 'ApprovalDenied');
  return decision!;
}

/**
 * The trial's last step when it did not end recorded: stores the scored trial the store refused,
 * or the trial as failed (with `error`) or cancelled. Recorded even when cancelled (the first
 * record of a trial wins); the run writes its trace afterwards.
 */
export async function recordUnfinished(t: Trial, unrecorded: CaseRecord | undefined, error: string | undefined): Promise<CaseOutcome> {
  const status: CaseOutcome = unrecorded?.status ?? (t.state.cancelled ? 'cancelled' : 'failed');
  const record: CaseRecord = unrecorded ?? {
    ...caseRun(t),
    endedAt: Date.now(),
    details: {},
    avgScore: 0,
    passed: false,
    status,
    error: status === 'cancelled' ? 'cancelled while running' : error,
  };
  await CancellationScope.nonCancellable(() => t.acts.record.recordCaseResult(record));
  return status;
}

/** Agent call number `n` (1 after an approval); a call that failed through its retries stays in the record with its error. */
async function callAgent(t: Trial, n: number, grant?: ApprovalDecision): Promise<AgentTurn> {
  // The first call starts at once (the run was not paused when it started this trial).
  if (n > 0 && t.state.paused) await t.whilePaused();
  const callStart = Date.now();
  try {
    const turn = await t.acts.agent.callCaseAgent({ ...caseRun(t), call: n, grant });
    if (turn.tag !== 'conversation') t.calls.push(turn.call);
    return turn;
  } catch (err) {
    if (isCancellation(err)) throw err;
    t.calls.push({ startedAt: callStart, endedAt: Date.now(), error: failureMessage(err) });
    throw err;
  }
}

/** The answer scored: the case's LLM judges first, then every other scorer and the record (scoreTrial). */
async function score(t: Trial, judges: string[]): Promise<TrialEnd> {
  const run = caseRun(t);
  let judged = judges.length ? await judgeTrial(t.acts, run, judges) : undefined;
  for (;;) {
    const scored = await t.acts.score.scoreTrial({ ...run, ...(judged ? { judged } : {}) });
    if (scored.tag !== 'to-judge') return scored;
    // Judges this worker knows that the agent call's did not (a worker with other providers).
    if (scored.judges.every((name) => judged && Object.hasOwn(judged, name)))
      throw ApplicationFailure.nonRetryable(`no verdict of ${scored.judges.join(', ')}`, 'JudgeVerdictMissing');
    judged = { ...judged, ...(await judgeTrial(t.acts, run, scored.judges)) };
  }
}

/** One trial, every decision here: the agent call, the approval, the judges, scoring, and how it is recorded. */
export async function decideTrial(t: Trial): Promise<CaseOutcome> {
  let end: TrialEnd | undefined;
  let error: string | undefined;
  let conversation = false;
  try {
    await t.scope.run(async () => {
      let turn = await callAgent(t, 0);
      if (turn.tag === 'conversation') {
        conversation = true;
        return;
      }
      if (turn.tag === 'asks-approval') turn = await callAgent(t, 1, await awaitApproval(t, turn.call.reply!.approval!));
      if (turn.tag === 'conversation') throw ApplicationFailure.nonRetryable('the case became a conversation', 'CaseChanged');
      if (turn.tag === 'recorded' || turn.tag === 'not-recorded') {
        end = turn;
        return;
      }
      if (t.state.paused) await t.whilePaused();
      end = await score(t, turn.tag === 'to-score' ? turn.judges : []);
    });
  } catch (err) {
    if (!(t.state.cancelled || isCancellation(err))) error = failureMessage(err);
  }
  if (conversation) return decideConversation(t);
  if (end?.tag === 'recorded') return end.status;
  return recordUnfinished(t, end?.record, error);
}
