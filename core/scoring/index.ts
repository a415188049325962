import { createJudgeScorers, type JudgeRuntime } from '../judges/scorers.js';
import { NO_PROVIDERS } from '../providers/set.js';
import { createScorerRegistry } from './registry.js';
import { RULE_SCORERS } from './rules/index.js';
import type { ScorerRegistry } from './scorer.js';
import { TRAJECTORY_SCORERS } from './trajectory/index.js';
import { CONVERSATION_RULE_SCORERS } from './conversation/index.js';

export type { Scorer, ScoreInput, ScorerRefIssue, ScorerRegistry, ScoreTrace } from './scorer.js';
export type { Aggregation, Expected, ScoreDetail, ScorerRef, TokenUsage, ToolCall } from '../model/eval-case.js';
export { createScorerRegistry, extendRegistry } from './registry.js';
export { RULE_SCORERS } from './rules/index.js';
export { TRAJECTORY_SCORERS, buildSpanTree } from './trajectory/index.js';
export { CONVERSATION_RULE_SCORERS, conversationJudges } from './conversation/index.js';
export type { SpanNode, SpanTree, TreeSpanInput, TreeStats, TreeToolCall } from './trajectory/index.js';
export { spanTreeOf } from './trace-view.js';
export { aggregateScores, casePasses, meanDetails, runScorers } from './run-scorers.js';

/** Judges known by name with no provider: refused at creation (400), never run. */
const NO_JUDGE_RUNTIME: JudgeRuntime = { providers: NO_PROVIDERS, maxAnswerAttempts: 3, maxOutputTokens: 4096 };

/**
 * The scorers every process knows: the rule-based ones, the trajectory scorers, the conversation scorers and the LLM judges (with the process's
 * providers, when it has any). A project's HTTP custom scorers join per project
 * (`extendRegistry`); the registry is built by the caller (no singleton).
 */
export function defaultScorerRegistry(options: { judges?: JudgeRuntime } = {}): ScorerRegistry {
  return createScorerRegistry([
    ...RULE_SCORERS,
    ...TRAJECTORY_SCORERS,
    ...CONVERSATION_RULE_SCORERS,
    ...createJudgeScorers(options.judges ?? NO_JUDGE_RUNTIME),
  ]);
}
