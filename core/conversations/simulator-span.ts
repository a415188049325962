import { judgeCallSpan, type JudgeCallForSpan } from '../judges/judge-span.js';

/**
 * The simulated user's calls in the case trace (docs/evals.md, "Simulated users"). They are
 * recorded with the judges' calls (the same store, budget and cost), under a name no scorer can
 * have (scorer names start with a letter), and written as generation spans of component type
 * `simulated_user`: tokens and cost count in the trace as any model call's, and the API, filters
 * and analytics tell them from the agent's own model calls.
 */

const PREFIX = '@simulated_user:';

/** The name a simulated user's call for turn `turn` is recorded under (the judge calls' `scorer`). */
export const simulatorCallName = (turn: number) => `${PREFIX}${turn}`;

/** The turn of a recorded call, when it is a simulated user's; undefined for a judge's. */
export function simulatorTurnOf(recordedName: string): number | undefined {
  if (!recordedName.startsWith(PREFIX)) return undefined;
  const turn = Number(recordedName.slice(PREFIX.length));
  return Number.isInteger(turn) && turn > 0 ? turn : undefined;
}

/** The generation span of one simulated user's call: model, prompt and answer, tokens, latency, cost when priced. */
export function simulatorCallSpan(c: JudgeCallForSpan): Record<string, unknown> {
  const turn = simulatorTurnOf(c.scorer) ?? 0;
  const span = judgeCallSpan(c);
  const judge = span.attributes as Record<string, unknown>;
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(judge)) {
    if (key === 'agent_eval.judge') continue;
    attributes[key.startsWith('agent_eval.judge_') ? `agent_eval.simulated_user_${key.slice('agent_eval.judge_'.length)}` : key] = value;
  }
  return {
    ...span,
    name: `simulated user: turn ${turn}`,
    attributes: { ...attributes, component_type: 'simulated_user', 'agent_eval.simulated_user_turn': turn },
  };
}
