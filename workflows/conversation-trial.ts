import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { ConversationEnd } from '../core/model/conversation.js';
import type { AgentCall } from './activity-types.js';
import type { CaseOutcome } from './contract.js';
import { failureMessage } from './activity-options.js';
import { awaitApproval, type Trial } from './case-trial.js';

/**
 * Workflow code (deterministic): one trial of a conversation case (docs/evals.md,
 * "Conversations"), turn by turn. For turn n: the user's message (the script's turn n, or the
 * simulated user's), the agent called with the history so far, the turn scored and recorded; each
 * of them its own activity. When the conversation ends (the script is done; the simulated user
 * met its goal or gave up, its stop condition matched, max_turns), the conversation-level scorers
 * run once and the trial is recorded.
 *
 * Every activity first looks for the turn in the store: a worker that restarts (its history
 * replayed without the results of local activities it had not reported) finds the turns already
 * recorded and never calls the agent or the simulated user again for them. Pause holds the next
 * step (between turns, and inside one before scoring or an approval's second call); cancel stops
 * the step under way and records the trial cancelled with the turns it had.
 *
 * Only trials whose case is a conversation come here, told by the trial's first agent activity
 * (callCaseAgent answers `conversation` without calling the agent): a result no trial started
 * before this path could have had, so their histories replay unchanged, without a patch marker.
 */
export async function decideConversation(t: Trial): Promise<CaseOutcome> {
  const { acts, key, state } = t;
  let ended: ConversationEnd | null = null;
  let error: string | undefined;
  /** Agent calls made in this trial so far: each call's number names its span in the case trace. */
  let calls = 0;
  try {
    await t.scope.run(async () => {
      for (let turn = 1; ; turn++) {
        if (state.paused) await t.whilePaused();
        const said = await acts.user.conversationUserTurn({ ...key, turn });
        if (said.tag === 'end') {
          ended = said.ended;
          return;
        }
        if (said.tag === 'stopped') throw ApplicationFailure.nonRetryable(said.reason, 'ConversationStopped');
        const turnCalls: AgentCall[] = [];
        t.approval = undefined;
        const call = async (grant?: Parameters<typeof acts.turnAgent.callTurnAgent>[0]['grant']) => {
          const startedAt = Date.now();
          try {
            const made = await acts.turnAgent.callTurnAgent({ ...key, turn, call: calls, message: said.message, grant });
            if (made.tag === 'recorded') return made;
            calls++;
            turnCalls.push(made.call);
            return made;
          } catch (err) {
            if (isCancellation(err)) throw err;
            turnCalls.push({ startedAt, endedAt: Date.now(), error: failureMessage(err) });
            calls++;
            throw err;
          }
        };
        try {
          let made = await call();
          if (made.tag === 'recorded') {
            calls = made.calls;
            if (made.error) throw ApplicationFailure.nonRetryable(made.error, 'TurnFailed');
            continue;
          }
          if (made.tag === 'asks-approval') {
            const grant = await awaitApproval(t, made.call.reply!.approval!);
            if (state.paused) await t.whilePaused();
            made = await call(grant);
          }
        } catch (err) {
          // The turn's failure is recorded with it (the API shows where the conversation broke), then fails the trial.
          if (!isCancellation(err) && turnCalls.length)
            await CancellationScope.nonCancellable(() =>
              acts.turnScore.finishTurn({ ...key, turn, message: said.message, calls: turnCalls, approval: t.approval, error: failureMessage(err) }),
            );
          throw err;
        }
        if (state.paused) await t.whilePaused();
        await acts.turnScore.finishTurn({ ...key, turn, message: said.message, calls: turnCalls, approval: t.approval });
      }
    });
  } catch (err) {
    if (!(state.cancelled || isCancellation(err))) error = failureMessage(err);
  }
  return CancellationScope.nonCancellable(() =>
    acts.conversationEnd.finishConversation({ ...key, startedAt: t.startedAt, ended, error, cancelled: state.cancelled }),
  );
}
