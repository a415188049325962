import type { TurnResult } from '../../core/model/eval-run.js';

/** A turn the agent answered in 5 ms and that passed: no tool calls, usage, scores, approval, error or trace unless `over` sets them. */
export const answeredTurn = (turn: number, user: string, output: string, over: Partial<TurnResult> = {}): TurnResult => ({
  turn,
  user,
  output,
  tool_calls: [],
  usage: null,
  latency_ms: 5,
  details: {},
  avg_score: null,
  passed: true,
  approval: null,
  error: null,
  trace_id: null,
  ...over,
});
