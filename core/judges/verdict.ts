import { z } from 'zod';
import type { ScoreDetail } from '../model/eval-case.js';
import type { JsonSchema } from '../providers/types.js';

/** The one tool (or JSON schema) every judge answers through. */
export const VERDICT_TOOL_NAME = 'record_verdict';

/**
 * The verdict's JSON Schema. It is the strict subset all four providers take: every property
 * required, no extra keys, no numeric bounds (OpenAI's strict mode and Gemini's response schema
 * differ on those), so the 0..1 range is checked here after the answer arrives.
 */
export const VERDICT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    score: { type: 'number', description: 'The score, from 0 (worst) to 1 (best), following the rubric and its bands.' },
    reason: { type: 'string', description: 'Why this score, in one to three sentences: what is good and what is missing or wrong.' },
    evidence: {
      type: 'array',
      items: { type: 'string' },
      description: 'Up to 5 short verbatim quotes (each under 200 characters) from the output that support the score; empty when the output is empty.',
    },
  },
  required: ['score', 'reason', 'evidence'],
  additionalProperties: false,
};

export const VERDICT_TOOL = {
  name: VERDICT_TOOL_NAME,
  description: 'Record the verdict on the response: a score from 0 to 1, the reason, and quotes from the output as evidence.',
  schema: VERDICT_SCHEMA,
};

const VerdictSchema = z.object({
  score: z.number().refine(Number.isFinite, 'must be a finite number').pipe(z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1')),
  reason: z.string().trim().min(1, 'must not be empty'),
  evidence: z.array(z.string()).default([]),
});

/** A structured answer as a verdict, or why it is not one (the judge then asks again). */
export function parseVerdict(value: unknown): { verdict: ScoreDetail } | { problem: string } {
  const parsed = VerdictSchema.safeParse(value);
  if (parsed.success) return { verdict: { score: parsed.data.score, reason: parsed.data.reason, evidence: parsed.data.evidence } };
  const issue = parsed.error.issues[0];
  const field = issue.path.length ? issue.path.join('.') : 'the answer';
  const got =
    issue.path.length === 1 && value && typeof value === 'object'
      ? ` (got ${JSON.stringify((value as Record<string, unknown>)[String(issue.path[0])])?.slice(0, 60)})`
      : '';
  return { problem: `${field} ${issue.message}${got}` };
}
