import { z } from 'zod';
import { MAX_CONVERSATION_TURNS, type ConversationView } from '../../model/conversation.js';
import type { JudgeRuntime, JudgeScorer } from '../../judges/judge-scorer.js';
import { regexFlags } from '../rules/support.js';
import type { ScoreInput } from '../scorer.js';
import { CONVERSATION_JUDGE_CONFIG, conversationJudge, type Bands } from './judge-question.js';
import { retentionByRule } from './retention-rule.js';
import { Pattern, requireConversation } from './support.js';

/**
 * `knowledgeRetention`: a fact the user gave in an earlier turn is used later, not asked for
 * again and not contradicted (docs/scorers.md "knowledgeRetention"). Two modes: `rule` checks
 * the configured `facts` (retention-rule.ts) without a model; `judge` asks an LLM judge, built
 * like every judge, about `config.facts`, else the simulated user's facts, else any fact the
 * user gave. The mode is `rule` when `facts` are configured, unless `mode` says otherwise.
 */

const Fact = z.strictObject({
  /** The fact as the user gives it ("order 1234"). */
  text: z.string().trim().min(1).max(10_000),
  /** Recognizes the fact in messages instead of `text` (RE2). */
  pattern: Pattern.optional(),
  givenInTurn: z.number().int().min(1).max(MAX_CONVERSATION_TURNS).optional(),
  mustAppearAfter: z.number().int().min(0).max(MAX_CONVERSATION_TURNS).optional(),
  /** Patterns that, in an agent turn after the fact was given, show it lost (asked again, contradicted). */
  forgottenIf: z.array(Pattern).min(1).max(20).optional(),
});

/** The mode asked for, else `rule` when facts are configured. */
const modeOf = (c: { mode?: 'rule' | 'judge'; facts?: unknown[] }) => c.mode ?? (c.facts ? 'rule' : 'judge');

const Config = z
  .strictObject({
    ...CONVERSATION_JUDGE_CONFIG,
    mode: z.enum(['rule', 'judge']).optional(),
    facts: z.array(Fact).min(1).max(50).optional(),
    /** The rule mode's pattern flags. */
    flags: regexFlags('i'),
  })
  .superRefine((c, ctx) => {
    if (c.mode === 'rule' && !c.facts) ctx.addIssue({ code: 'custom', path: ['facts'], message: 'the rule mode checks config.facts: give at least one' });
    if (modeOf(c) !== 'rule') return;
    c.facts?.forEach((f, i) => {
      if (f.mustAppearAfter === undefined && !f.forgottenIf)
        ctx.addIssue({ code: 'custom', path: ['facts', i], message: 'needs mustAppearAfter or forgottenIf: what shows the fact retained or lost' });
    });
  });
type RetentionConfig = z.output<typeof Config>;

/** What the judge asks. docs/scorers.md quotes it. */
export const RETENTION_CRITERIA = [
  'Knowledge retention: facts the user gave in one turn (a name, an order number, a date, a preference, a constraint) are kept in later turns. The agent uses them where they matter, does not ask for them again, and does not contradict or change them.',
  'Name in your reason each lost fact with the turn it was given and the turn it was lost ("order number given in turn 2, asked again in turn 5").',
].join('\n');

const BANDS: Bands = [
  'every fact the user gave is kept and used where it matters.',
  'one fact is used late or imprecisely, none is lost.',
  'a fact is asked for again or contradicted once.',
  'facts are lost repeatedly, or a lost fact breaks the outcome.',
];

/** The facts the judge checks: the config's, else the conversation's, else any it finds. */
function factsPart(config: RetentionConfig, view: ConversationView): Array<[string, string]> {
  const facts = config.facts?.map((f) => f.text) ?? view.facts;
  return [['facts', facts?.length ? facts.map((f) => `- ${f}`).join('\n') : 'No list was given: find the facts the user gave and check each.']];
}

function byRule(input: ScoreInput, signal?: AbortSignal) {
  const config = Config.parse(input.config);
  return retentionByRule(requireConversation(input, 'knowledgeRetention'), config.facts ?? [], config.flags, { runId: input.runId, signal });
}

export function knowledgeRetentionScorer(runtime: JudgeRuntime): JudgeScorer {
  const judge = conversationJudge(runtime, {
    name: 'knowledgeRetention',
    description:
      'A fact the user gave in an earlier turn is used later, not asked again, not contradicted: by rule over config.facts (text or RE2 pattern; mustAppearAfter, forgottenIf), or by an LLM judge (mode judge; the simulated user’s facts, or any).',
    config: Config,
    criteria: RETENTION_CRITERIA,
    bands: BANDS,
    parts: factsPart,
  });
  const isRule = (config: Record<string, unknown>) => modeOf(Config.parse(config)) === 'rule';
  // The rule mode needs no provider: it is neither refused without one nor sent to one.
  return {
    ...judge,
    unavailable: (config) => (isRule(config) ? undefined : judge.unavailable?.(config)),
    judge: (input, hooks, name) => (isRule(input.config) ? byRule(input, hooks?.signal) : judge.judge(input, hooks, name)),
    evaluate: (input, signal) => (isRule(input.config) ? byRule(input, signal) : judge.evaluate(input, signal)),
  };
}
