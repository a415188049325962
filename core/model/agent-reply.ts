import { z } from 'zod';

/**
 * What an agent answers to `POST {endpoint}` (docs/evals.md): its output, the tools it called,
 * token usage, spans of its own in the ingest shape, and optionally a request for a person's
 * approval of a sensitive tool before it goes on.
 */
export const AgentReplySchema = z.object({
  output: z.unknown(),
  tool_calls: z
    .array(z.union([z.string().min(1).max(256), z.object({ name: z.string().min(1).max(256), input: z.unknown().optional(), output: z.unknown().optional() })]))
    .max(10_000)
    .optional()
    .transform((calls) => (calls ?? []).map((c) => (typeof c === 'string' ? { name: c } : c))),
  usage: z.object({ input_tokens: z.number().int().min(0).max(1e12), output_tokens: z.number().int().min(0).max(1e12) }).optional(),
  /** Checked when the case's trace is written (the ingest schema); bad spans are left out, not the case. */
  spans: z.array(z.record(z.string(), z.unknown())).max(10_000).optional(),
  approval: z.object({ tool: z.string().min(1).max(256), reason: z.string().max(4096).optional() }).optional(),
});
export type AgentReply = z.output<typeof AgentReplySchema>;

/** Largest agent answer accepted (it travels through the workflow's history). */
export const MAX_AGENT_REPLY_BYTES = 1024 * 1024;
