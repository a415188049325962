import type { ConversationEnd, SimulatedUserTurn, Simulation } from '../model/conversation.js';
import { outputText } from '../scoring/rules/support.js';

/**
 * Whether a simulated conversation ends, and why (docs/evals.md, "Simulated users"). Pure and free
 * of Node imports, so the workflow calls it in its own code after each step:
 * - the simulated user stopped (`goal_met`, `gave_up`): its message is not sent to the agent;
 * - the agent's last answer contains one of `stop.outputContains` (case-insensitive, as the
 *   `contains` scorer by default): `stop_condition`;
 * - `max_turns` user turns have been answered: `max_turns`.
 * Checked in that order; null while the conversation goes on.
 *
 * @param turnsDone user turns the agent has answered so far
 * @param lastAgentOutput the agent's last answer (`output` as it answered; any value), undefined before its first
 * @param lastUserTurn the simulated user's last turn, undefined before its first
 */
export function conversationEnd(
  simulation: Pick<Simulation, 'max_turns' | 'stop'>,
  turnsDone: number,
  lastAgentOutput: unknown,
  lastUserTurn?: SimulatedUserTurn,
): ConversationEnd | null {
  if (lastUserTurn?.stop) return lastUserTurn.stop;
  const wanted = simulation.stop?.outputContains;
  if (wanted && turnsDone > 0 && lastAgentOutput !== undefined) {
    const text = outputText(lastAgentOutput).toLowerCase();
    if (wanted.some((needle) => text.includes(needle.toLowerCase()))) return 'stop_condition';
  }
  if (turnsDone >= simulation.max_turns) return 'max_turns';
  return null;
}
