import type { Scorer } from '../scorer.js';
import { loopsScorer } from './loops.js';
import { selectionConfidenceScorer } from './selection-confidence.js';
import { spanMatchScorer } from './span-match.js';
import { stepsScorer } from './steps.js';
import { toolCallsScorer } from './tool-calls.js';
import { toolErrorsScorer } from './tool-errors.js';

/**
 * The trajectory scorers: rule-based scorers of what the agent did, read from its trace as a span
 * tree (span-tree.ts; docs/scorers.md "Trajectory scorers"). A new one is one file plus one entry here.
 */
export const TRAJECTORY_SCORERS: Scorer[] = [toolCallsScorer, stepsScorer, loopsScorer, toolErrorsScorer, spanMatchScorer, selectionConfidenceScorer];

export { loopsScorer, selectionConfidenceScorer, spanMatchScorer, stepsScorer, toolCallsScorer, toolErrorsScorer };
export { attribute, buildSpanTree, TOOL_NAME_KEYS } from './span-tree.js';
export type { SpanLink, SpanNode, SpanSelection, SpanTree, TreeAnomalies, TreeSpanInput, TreeStats, TreeToolCall } from './span-tree.js';
export type { ParsedArguments } from './json-value.js';
