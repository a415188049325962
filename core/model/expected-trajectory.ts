import { z } from 'zod';
import { PredicateSchema } from '../scoring/trajectory/predicates.js';

/**
 * What a case expects of the agent's trajectory (`expected.trajectory`, docs/evals.md and
 * docs/scorers.md "Expectations in the case"): the tool calls it should make, with their
 * arguments and how they are matched, the tools it must not call, and what it may spend. The
 * trajectory scorers read it where their own config does not say (`toolCalls`: calls, mode,
 * argsMatch, forbidden; `steps`: the budget). The same shapes are those scorers' configs.
 */

export const TOOL_CALL_MODES = ['strict', 'unordered', 'subset', 'superset'] as const;
export type ToolCallMode = (typeof TOOL_CALL_MODES)[number];
export const ARGS_MATCHES = ['exact', 'subset', 'ignore'] as const;
export type ArgsMatch = (typeof ARGS_MATCHES)[number];

export const ToolNameSchema = z.string().min(1).max(256);

/** One expected tool call: a tool name, or `{name, args?, argsMatch?, where?}`. */
export const ExpectedCallSchema = z.preprocess(
  (v) => (typeof v === 'string' ? { name: v } : v),
  z.strictObject({
    name: ToolNameSchema,
    /** The arguments expected (JSON; JSON text holding an object or a list is read as it). */
    args: z.unknown().optional(),
    argsMatch: z.enum(ARGS_MATCHES).optional(),
    /** Predicates on single arguments, by name or dotted path (`legs.0.from`). */
    where: z
      .record(z.string().min(1).max(1024), PredicateSchema)
      .refine((w) => Object.keys(w).length <= 50, 'at most 50 predicates')
      .optional(),
  }),
);
export type ExpectedCall = z.output<typeof ExpectedCallSchema>;

export const ExpectedCallListSchema = z.array(ExpectedCallSchema).max(1000);
export const ForbiddenToolsSchema = z.array(ToolNameSchema).max(1000);

const count = z.number().int().min(0).max(1e12);
const amount = z.number().refine(Number.isFinite, 'must be a finite number').min(0);

/** Budgets on what the agent spends doing a case, read from its trace (the `steps` scorer's). */
export const TrajectoryBudgetSchema = z.strictObject({
  maxLlmCalls: count.optional(),
  maxToolCalls: count.optional(),
  maxSpans: count.optional(),
  /** Input plus output tokens of the model calls. */
  maxTokens: count.optional(),
  /** USD over the priced model calls (docs/costs.md). */
  maxCostUsd: amount.optional(),
  /** From the trace's first span start to its last span end. */
  maxWallMs: amount.optional(),
});
export type TrajectoryBudget = z.output<typeof TrajectoryBudgetSchema>;

/** `expected.trajectory`. Unknown keys are refused (a misspelt `budgets` would otherwise be ignored). */
export const ExpectedTrajectorySchema = z.strictObject({
  calls: ExpectedCallListSchema.optional(),
  mode: z.enum(TOOL_CALL_MODES).optional(),
  argsMatch: z.enum(ARGS_MATCHES).optional(),
  /** Tools the agent must not call at all. */
  forbidden: ForbiddenToolsSchema.optional(),
  budget: TrajectoryBudgetSchema.optional(),
});
export type ExpectedTrajectory = z.output<typeof ExpectedTrajectorySchema>;

/**
 * The case's `expected.trajectory` as a scorer reads it: checked again, since a run's cases come
 * back from storage (they were checked when the suite or run was created); undefined when the
 * case has none. Throws, naming the field, when it is not valid.
 */
export function trajectoryOf(expected: { trajectory?: unknown } | undefined): ExpectedTrajectory | undefined {
  const raw = expected?.trajectory;
  if (raw === undefined || raw === null) return undefined;
  const parsed = ExpectedTrajectorySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = ['expected', 'trajectory', ...issue.path.map(String)].join('.');
  throw new Error(`${at}: ${issue.message}`);
}
