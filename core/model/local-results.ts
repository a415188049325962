import { z } from 'zod';
import { CONVERSATION_ENDS, MAX_CONVERSATION_TURNS } from './conversation.js';

/**
 * The pieces of a local run's uploaded results (`POST /api/runs/{id}/results`; docs/evals.md,
 * "Runs executed outside the service") that a case trial and a conversation's turn share, and a
 * conversation trial's turns and end. LocalResultSchema (eval-run.ts) is built from them.
 */

/** Per scorer: `{score, reason, evidence}`, as the client's scorers gave it. */
export const UploadedDetailsSchema = z
  .record(
    z.string().min(1).max(128),
    z.object({ score: z.number().min(0).max(1), reason: z.string().max(65_536).default(''), evidence: z.array(z.string().max(65_536)).max(50).default([]) }),
  )
  .default({});

export const UploadedToolCallsSchema = z
  .array(z.object({ name: z.string().min(1).max(256), input: z.unknown().optional(), output: z.unknown().optional() }))
  .max(10_000)
  .nullish();

export const UploadedUsageSchema = z.object({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) }).nullish();

const Millis = z.number().min(0).max(86_400_000);

/**
 * One turn of a conversation trial as its client ran it: the user's message, the agent's answer
 * and the turn's scores (empty when the turn has no scorers). The service judges `passed`.
 */
export const LocalTurnSchema = z.object({
  /** 1-based, in order from 1. */
  turn: z.number().int().min(1).max(MAX_CONVERSATION_TURNS),
  /** The user's message as sent to the agent (a scripted turn's input as text: non-strings as their JSON text). */
  user: z.string().max(1_048_576),
  output: z.unknown().optional(),
  tool_calls: UploadedToolCallsSchema,
  usage: UploadedUsageSchema,
  details: UploadedDetailsSchema,
  /** The agent failed on this turn (it threw, timed out...): the conversation ended there. */
  error: z.string().max(65_536).nullish(),
  latency_ms: Millis.nullish(),
  /** Epoch ms at which the turn started. */
  started_at: z.number().int().min(0).optional(),
});
export type LocalTurn = z.output<typeof LocalTurnSchema>;

/** A conversation trial's turns (the failed one last, when one failed) and how it ended. */
export const LocalConversationFields = {
  turns: z.array(LocalTurnSchema).max(MAX_CONVERSATION_TURNS).optional(),
  /** Why the conversation ended; null when it did not (a turn or the simulated user failed). */
  conversation: z.strictObject({ ended: z.enum(CONVERSATION_ENDS).nullable() }).optional(),
};
