import type { Scorer } from '../scorer.js';
import { containsScorer } from './contains.js';
import { exactMatchScorer } from './exact-match.js';
import { jsonMatchScorer } from './json-match.js';
import { latencyScorer } from './latency.js';
import { regexScorer } from './regex.js';
import { tokenEfficiencyScorer } from './token-efficiency.js';
import { toolSelectionScorer } from './tool-selection.js';

/** The SPEC's rule-based scorers (fast, deterministic). A new one is one file plus one entry here. */
export const RULE_SCORERS: Scorer[] = [
  containsScorer,
  exactMatchScorer,
  toolSelectionScorer,
  regexScorer,
  latencyScorer,
  tokenEfficiencyScorer,
  jsonMatchScorer,
];

export { containsScorer, exactMatchScorer, jsonMatchScorer, latencyScorer, regexScorer, tokenEfficiencyScorer, toolSelectionScorer };
