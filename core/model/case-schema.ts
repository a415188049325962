import { z } from 'zod';
import { MAX_CONVERSATION_TURNS, ScriptedTurnSchema, SimulationSchema, type ScriptedTurn, type Simulation } from './conversation.js';
import { ExpectedSchema, ScorerRefListSchema, type ScorerRef } from './eval-case.js';

/**
 * One case of a suite (or one dataset item of a run), in its three shapes (docs/evals.md,
 * "Conversations"): a single call (`input`), a scripted conversation (`turns`), or a simulated
 * user (`simulation`). Exactly one of the three. Apart from eval-case.ts because the turn and
 * simulation schemas (conversation.ts) are built from its pieces.
 */

const ScoreBound = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');

/** The fields that make a case's shape: exactly one of them. */
export const CASE_SHAPES = ['input', 'turns', 'simulation'] as const;

const present = (raw: Record<string, unknown>, key: string) => Object.hasOwn(raw, key) && raw[key] !== undefined;

/**
 * Why a raw case (as a client sent it, before the schema) is of no shape or of several, or
 * undefined. The routes answer several with a 400 before the schema's 422s; none is the schema's
 * `input: is required`.
 */
export function caseShapeProblem(raw: unknown): string | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const given = CASE_SHAPES.filter((key) => present(raw as Record<string, unknown>, key));
  if (given.length <= 1) return undefined;
  return `give exactly one of input (a single call), turns (a scripted conversation) or simulation (a simulated user); this case gives ${given.join(' and ')}`;
}

/** The trace (and span) a case was made from: `source` of a case added from production. */
export const CaseSourceSchema = z.strictObject({
  trace_id: z.string().min(1).max(256),
  span_id: z.string().min(1).max(256).optional(),
  session_id: z.string().min(1).max(1024).optional(),
});
export type CaseSource = z.output<typeof CaseSourceSchema>;

/** A case's fields; {@link EvalCaseSchema} checks its shape. */
export const CaseFields = z.object({
  name: z.string().min(1).max(512),
  input: z.unknown().optional(),
  /** A scripted conversation: the user's turns, in order. */
  turns: z.array(ScriptedTurnSchema).min(1, 'a scripted conversation needs at least one turn').max(MAX_CONVERSATION_TURNS).optional(),
  /** A simulated user plays the conversation (core/conversations/simulator.ts). */
  simulation: SimulationSchema.optional(),
  expected: ExpectedSchema.default({}),
  scorers: ScorerRefListSchema.optional(),
  minScore: ScoreBound.optional(),
  weight: z.number().positive().max(1e6).default(1),
  /** Where the case came from, when it was made from production (core/datasets/: a trace, a span of it). */
  source: CaseSourceSchema.optional(),
  /** Fields kept with the case for people and custom scorers (a trace's chosen attributes, an import's extra columns). */
  metadata: z.record(z.string().max(256), z.unknown()).optional(),
});

/** Exactly one of input, turns and simulation, as a refinement of a schema built from {@link CaseFields}. */
export function oneShape(c: { input?: unknown; turns?: unknown; simulation?: unknown }, ctx: z.RefinementCtx): void {
  const given = CASE_SHAPES.filter((key) => c[key] !== undefined);
  if (given.length === 0) ctx.addIssue({ code: 'custom', path: ['input'], message: 'is required' });
  else if (given.length > 1) ctx.addIssue({ code: 'custom', path: [given[1]], message: caseShapeProblem(c)! });
}

export const EvalCaseSchema = CaseFields.superRefine(oneShape);
export type EvalCase = z.output<typeof EvalCaseSchema>;

/** A case's conversation, when it is one (a stored run case or a suite case). */
export interface ConversationShape {
  turns?: ScriptedTurn[] | null;
  simulation?: Simulation | null;
}

/** Whether a case is a conversation (scripted or simulated) rather than a single call. */
export const isConversation = (c: ConversationShape) => Boolean(c.turns?.length || c.simulation);

/** Tells conversation-level scorers (Scorer.readsConversation) by name; unknown names are not. */
export type ReadsConversation = (scorerName: string) => boolean;

/** A list of scorers as a request places them, for the conversation checks below. */
export interface PlacedCase extends ConversationShape {
  /** Where the request put the case, e.g. `dataset.items[2]` or `cases[0]`. */
  field: string;
  /** The case's own scorers, if it lists any. */
  scorers?: readonly ScorerRef[];
}

/**
 * Where conversation-level scorers are misplaced, as 400 messages (docs/evals.md,
 * "Conversations"): on a single-turn case (its own scorers, or the defaults it takes from
 * `defaults`), or in a scripted turn's scorers (a turn is scored on its own answer). The first
 * problem, or undefined.
 */
export function conversationScorerProblem(
  cases: readonly PlacedCase[],
  defaults: { field: string; refs: readonly ScorerRef[] },
  reads: ReadsConversation,
): string | undefined {
  for (const c of cases) {
    const own = c.scorers;
    if (!isConversation(c)) {
      const refs = own ?? defaults.refs;
      const i = refs.findIndex((ref) => reads(ref.name));
      if (i >= 0) {
        const where = own ? `${c.field}.scorers[${i}]` : `${defaults.field}[${i}]`;
        const which = own ? '' : ` (${c.field} is a single-turn case and takes these scorers)`;
        return `${where}: '${refs[i].name}' scores a whole conversation and cannot score a single-turn case${which}; give it to cases with turns or simulation`;
      }
    }
    for (const [t, turn] of (c.turns ?? []).entries()) {
      const i = (turn.scorers ?? []).findIndex((ref) => reads(ref.name));
      if (i >= 0)
        return `${c.field}.turns[${t}].scorers[${i}]: '${turn.scorers![i].name}' scores a whole conversation: list it in the case's scorers, not a turn's`;
    }
  }
  return undefined;
}

/** Every scorer list of a case's turns, named where the request put it (for the registry's checks). */
export function turnScorerLists(c: PlacedCase): Array<{ field: string; refs: ScorerRef[] | undefined }> {
  return (c.turns ?? []).map((turn, t) => ({ field: `${c.field}.turns[${t}].scorers`, refs: turn.scorers }));
}
