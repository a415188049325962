import { z } from 'zod';
import type { ScoreDetail } from '../core/model/eval-case.js';
import { NO_PROVIDERS } from '../core/providers/set.js';
import { CONVERSATION_RULE_SCORERS } from '../core/scoring/conversation/index.js';
import { knowledgeRetentionScorer } from '../core/scoring/conversation/knowledge-retention.js';
import { createScorerRegistry, RULE_SCORERS, type Scorer, type ScoreInput, type ScorerRegistry } from '../core/scoring/index.js';
import { verdictToDetail, type VerdictDataType } from '../core/scoring/verdict.js';

/**
 * Custom scorers (SPEC "Scorers": a name, optionally a dataType, and an evaluate function
 * returning a value or score and a reason). A custom scorer is the service's own `Scorer`
 * interface (core/scoring), so `evaluate()` runs it beside the rule scorers through one
 * registry and one `runScorers`: a throw scores 0 with the error as the reason.
 */

export type ScorerDataType = VerdictDataType;

/** What a custom scorer's `evaluate` may return: a number, a boolean, or an object with a value (or score) and a reason. */
export type ScorerVerdict = number | boolean | { value?: number | boolean | string; score?: number; reason?: string; evidence?: string[] };

export interface ScorerDefinition {
  /** The name suites and runs refer to it by (letters, digits, `_ . : -`; starting with a letter). */
  name: string;
  /** How `value` is read: `numeric` 0..1 (default), `boolean` (true 1, false 0), `categorical` (a label scored by `categories`). */
  dataType?: ScorerDataType;
  /** Scores of the labels a categorical scorer returns. */
  categories?: Record<string, number>;
  description?: string;
  /**
   * A conversation-level scorer: it reads the whole conversation (`input.conversation`: turns,
   * messages, why it ended) and runs once when a conversation case ended, never on a single
   * turn; a suite that gives it to a single-turn case is refused.
   */
  conversation?: boolean;
  evaluate(input: ScoreInput): ScorerVerdict | Promise<ScorerVerdict>;
}

/** Defines a custom scorer; pass it in a suite's scorers or to `evaluate({scorers})`. */
export function defineScorer(def: ScorerDefinition): Scorer {
  if (typeof def.evaluate !== 'function') throw new TypeError('defineScorer needs an evaluate function');
  if (!/^[A-Za-z][A-Za-z0-9_.:-]{0,127}$/.test(def.name ?? '')) {
    throw new TypeError(`scorer name '${def.name}' must start with a letter and hold only letters, digits, "_", ".", ":" or "-"`);
  }
  if (def.dataType === 'categorical' && !def.categories) throw new TypeError(`categorical scorer '${def.name}' needs categories (label -> score)`);
  return {
    name: def.name,
    kind: 'custom',
    description: def.description ?? `custom ${def.dataType ?? 'numeric'} scorer`,
    configSchema: z.record(z.string(), z.unknown()),
    ...(def.conversation ? { readsConversation: true } : {}),
    async evaluate(input: ScoreInput): Promise<ScoreDetail> {
      // The service's one reading of a verdict (HTTP custom scorers use it too).
      return verdictToDetail(await def.evaluate(input), { who: `scorer '${def.name}'`, dataType: def.dataType ?? 'numeric', categories: def.categories });
    },
  };
}

/** Is `value` a scorer object (defineScorer's, or any Scorer)? */
export function isScorer(value: unknown): value is Scorer {
  return typeof value === 'object' && value !== null && typeof (value as Scorer).evaluate === 'function' && typeof (value as Scorer).name === 'string';
}

/** The rule mode of `knowledgeRetention` runs here; its judge mode needs the service's providers (refused without one). */
const NO_JUDGES = { providers: NO_PROVIDERS, maxAnswerAttempts: 3, maxOutputTokens: 4096 };

/**
 * The rule scorers the service knows (the conversation-level ones `turnsToGoal`, `turnScores`
 * and `knowledgeRetention` by rule included), plus `custom` ones (names must be distinct).
 */
export function scorerRegistry(custom: readonly Scorer[] = []): ScorerRegistry {
  const unique = new Map<string, Scorer>();
  for (const s of custom) {
    const seen = unique.get(s.name);
    if (seen && seen !== s) throw new TypeError(`two different scorers are named '${s.name}'`);
    unique.set(s.name, s);
  }
  return createScorerRegistry([...RULE_SCORERS, ...CONVERSATION_RULE_SCORERS, knowledgeRetentionScorer(NO_JUDGES), ...unique.values()]);
}
