import { z } from 'zod';
import type { ScoreDetail } from '../core/model/eval-case.js';
import { NO_PROVIDERS } from '../core/providers/set.js';
import { createJudgeScorers } from '../core/judges/scorers.js';
import type { RunCase } from '../core/model/eval-run.js';
import { CONVERSATION_RULE_SCORERS } from '../core/scoring/conversation/index.js';
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

/** No provider here: the judges are known by name (a suite may name them), never run. */
const NO_JUDGES = { providers: NO_PROVIDERS, maxAnswerAttempts: 3, maxOutputTokens: 4096 };

/** The service's LLM judges, as the service knows them with no provider. */
const JUDGES = createJudgeScorers(NO_JUDGES);

/**
 * The LLM judges as a suite reads them here: valid names and configs, so a suite that names
 * them is accepted (`agent-eval suites push`, a managed `run` of a file: the service judges),
 * none refused for want of a provider. `knowledgeRetention` with `facts` (its rule mode) runs here
 * as a rule scorer; every other judge is refused by evaluate() (localRunJudge).
 */
const SUITE_JUDGES: Scorer[] = JUDGES.map((judge) => ({ ...judge, unavailable: undefined }));

/**
 * The scorers the service knows that the SDK reads: the rule scorers (the conversation-level ones
 * `turnsToGoal`, `turnScores` and `knowledgeRetention` by rule included), the LLM judges by name
 * (SUITE_JUDGES), plus `custom` ones (names must be distinct; a custom scorer may take a judge's name).
 */
export function scorerRegistry(custom: readonly Scorer[] = []): ScorerRegistry {
  const unique = new Map<string, Scorer>();
  for (const s of custom) {
    const seen = unique.get(s.name);
    if (seen && seen !== s) throw new TypeError(`two different scorers are named '${s.name}'`);
    unique.set(s.name, s);
  }
  return createScorerRegistry([...RULE_SCORERS, ...CONVERSATION_RULE_SCORERS, ...SUITE_JUDGES.filter((j) => !unique.has(j.name)), ...unique.values()]);
}

/**
 * The first scorer of `cases` (a case's, or a scripted turn's) that would ask an LLM: an LLM
 * judge, single-turn or conversation-level (`knowledgeRetention` without `facts` included). LLM
 * judges run on the service, not in a local run (docs/sdk.md "Scorers"): evaluate() refuses such a
 * suite before it creates the run, for single-turn and conversation cases alike.
 */
export function localRunJudge(registry: ScorerRegistry, cases: readonly RunCase[]): { caseName: string; scorer: string } | undefined {
  for (const c of cases) {
    for (const ref of [...c.scorers, ...(c.turns ?? []).flatMap((t) => t.scorers ?? [])]) {
      const judge = JUDGES.find((j) => j.name === ref.name);
      if (!judge || !SUITE_JUDGES.includes(registry.get(ref.name)!)) continue;
      const config = judge.configSchema.safeParse(ref.config ?? {});
      if (!config.success || judge.unavailable?.(config.data) !== undefined) return { caseName: c.name, scorer: ref.name };
    }
  }
  return undefined;
}
