import { createScorerRegistry } from './registry.js';
import { RULE_SCORERS } from './rules/index.js';
import type { ScorerRegistry } from './scorer.js';

export type { Scorer, ScoreInput, ScorerRefIssue, ScorerRegistry } from './scorer.js';
export type { Aggregation, Expected, ScoreDetail, ScorerRef, TokenUsage, ToolCall } from '../model/eval-case.js';
export { createScorerRegistry } from './registry.js';
export { RULE_SCORERS } from './rules/index.js';
export { aggregateScores, casePasses, meanDetails, runScorers } from './run-scorers.js';

/**
 * The scorers every process knows: today the rule-based ones. LLM judges and HTTP custom scorers
 * join by adding their list here; the registry is built by the caller (no singleton).
 */
export function defaultScorerRegistry(): ScorerRegistry {
  return createScorerRegistry(RULE_SCORERS);
}
