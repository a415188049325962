import { z } from 'zod';
import { patternProblem } from '../safe-regex.js';
import { ExpectedTrajectorySchema } from './expected-trajectory.js';

/**
 * The pieces every evaluation shares (suites, the second family's dataset items, runs, the SDK):
 * what a case expects, which scorers judge it and how their scores combine.
 */

export const AGGREGATIONS = ['mean', 'min', 'max', 'weighted'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

const MAX_TEXT = 65_536;
const ScoreBound = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');

/** A scorer's name: the registry's names, or a custom scorer's own. */
export const ScorerName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z][A-Za-z0-9_.:-]*$/, 'must start with a letter and hold only letters, digits, "_", ".", ":" or "-"');

/**
 * A scorer as a suite or run names it: `"contains"`, or `{name, config?, minScore?, weight?}`.
 * Normalized to the object form; the registry checks the name and the config when a suite or
 * run is created, so a typo is a 400 then and not a failed case later.
 */
export const ScorerRefSchema = z
  .union([
    ScorerName,
    z.object({
      name: ScorerName,
      config: z.record(z.string(), z.unknown()).default({}),
      minScore: ScoreBound.optional(),
      weight: z.number().positive().max(1e6).optional(),
    }),
  ])
  .transform((ref) => (typeof ref === 'string' ? { name: ref, config: {} } : ref));
export type ScorerRef = z.output<typeof ScorerRefSchema>;

/** A list of scorers with distinct names (scores are keyed by scorer name). */
export const ScorerRefListSchema = z
  .array(ScorerRefSchema)
  .max(50)
  .superRefine((refs, ctx) => {
    const seen = new Set<string>();
    refs.forEach((ref, i) => {
      if (seen.has(ref.name)) ctx.addIssue({ code: 'custom', path: [i], message: `scorer '${ref.name}' is listed twice` });
      seen.add(ref.name);
    });
  });

const TextList = z.union([z.string().max(MAX_TEXT), z.array(z.string().max(MAX_TEXT)).max(1000)]).transform((v) => (typeof v === 'string' ? [v] : v));

/** A tool call as a case expects it: a name, or `{name, input?}`. */
const ExpectedToolCall = z.union([z.string().min(1).max(256), z.object({ name: z.string().min(1).max(256), input: z.unknown().optional() })]);

/**
 * What a case expects. Each rule-based scorer reads its own field (docs/evals.md); unknown
 * fields are kept for custom scorers.
 */
export const ExpectedSchema = z
  .object({
    outputContains: TextList.optional(),
    toolCalls: z.array(ExpectedToolCall).max(1000).optional(),
    output: z.unknown().optional(),
    // User patterns run on RE2 (core/safe-regex.ts): what it cannot run is refused here, naming the pattern.
    regex: TextList.optional().superRefine((patterns, ctx) => {
      patterns?.forEach((pattern, i) => {
        const problem = patternProblem(pattern);
        if (problem) ctx.addIssue({ code: 'custom', path: [i], message: problem });
      });
    }),
    json: z.unknown().optional(),
    maxLatencyMs: z.number().positive().max(86_400_000).optional(),
    maxTokens: z.number().int().positive().max(1e12).optional(),
    /** What the agent should do on the way (core/model/expected-trajectory.ts): the trajectory scorers read it. */
    trajectory: ExpectedTrajectorySchema.optional(),
  })
  .passthrough();
export type Expected = z.output<typeof ExpectedSchema>;

/* A case's schema (its three shapes: input, turns, simulation) is in case-schema.ts. */

/** A tool call as an agent reports it: `{name, input?, output?}` or a bare name. */
export interface ToolCall {
  name: string;
  input?: unknown;
  output?: unknown;
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

/** One scorer's verdict on one case (SPEC: details `{score, reason, evidence}`). */
export interface ScoreDetail {
  score: number;
  reason: string;
  evidence: string[];
}
