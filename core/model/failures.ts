import { z } from 'zod';
import { resolveTimeWindow, WindowSchema } from './analytics.js';

/**
 * Failure analysis (docs/api.md, "Failure analysis"): a run's failed cases, or a window's
 * production traces with errors, grouped by what went wrong. A group's signature is computed
 * deterministically from the failure (core/failures/signature.ts); the same failures always make
 * the same groups in the same order (most failures first, then by key).
 */

/** What kind of failure a group holds. */
export const FAILURE_KINDS = ['agent_error', 'scorer', 'conversation', 'span_error'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** What a group's members share. Texts are normalized: ids, numbers, quoted values, URLs and e-mail addresses replaced by placeholders. */
export interface FailureSignature {
  kind: FailureKind;
  /** The error's type: `exception.type` / `error.type`, else the words before the message's first colon. */
  error_type: string | null;
  /** The failing scorer (kind `scorer`). */
  scorer: string | null;
  /** The failing span's path by name from the trace's root (a run's case root left out), deepest failing span first found. */
  span_path: string | null;
  /** The normalized message: the error's, or the failing scorer's reason. */
  message: string;
}

/** One failure a group shows as an example. */
export interface FailureExample {
  trace_id: string | null;
  /** A run's case; absent for production traces. */
  case_index?: number;
  case_name?: string;
  /** The failure's own text (cut at 1,000 characters). */
  message: string;
}

export interface FailureGroup {
  /** Stable id of the signature (16 hex digits): the same signature has the same key in every answer. */
  key: string;
  signature: FailureSignature;
  count: number;
  /** The first few failures of the group (at most MAX_EXAMPLES), in the order they were found. */
  examples: FailureExample[];
  /** A sentence naming the group, written by a judge model when asked for (`label=true`) and one is configured; null otherwise. */
  label: string | null;
}

export interface FailureAnalysis {
  /** Failures examined: a run's failed cases, or traces with an error in the window. */
  failure_count: number;
  groups: FailureGroup[];
  /** More traces had errors in the window than were examined (`limit`). */
  truncated: boolean;
  /** Why labels are absent when they were asked for (no judge provider, budget spent); null otherwise. */
  label_note: string | null;
}

export interface RunFailureAnalysis extends FailureAnalysis {
  run_id: string;
}

export interface TraceFailureAnalysis extends FailureAnalysis {
  start_time: string;
  end_time: string;
}

/** The answers' schemas (the OpenAPI document's, and what the API tests check each real answer against). */
const FailureSignatureSchema = z.object({
  kind: z.enum(FAILURE_KINDS),
  error_type: z.string().nullable(),
  scorer: z.string().nullable(),
  span_path: z.string().nullable(),
  message: z.string(),
});
const FailureGroupSchema = z.object({
  key: z.string().regex(/^[0-9a-f]{16}$/),
  signature: FailureSignatureSchema,
  count: z.number().int().min(1),
  examples: z.array(
    z.object({ trace_id: z.string().nullable(), case_index: z.number().int().optional(), case_name: z.string().optional(), message: z.string() }),
  ),
  label: z.string().nullable(),
});
const analysisShape = {
  failure_count: z.number().int().min(0),
  groups: z.array(FailureGroupSchema),
  truncated: z.boolean(),
  label_note: z.string().nullable(),
};
/** GET /api/runs/{id}/failures: {@link RunFailureAnalysis}. */
export const RunFailureAnalysisSchema = z.object({ run_id: z.string(), ...analysisShape });
/** GET /api/failures: {@link TraceFailureAnalysis}. */
export const TraceFailureAnalysisSchema = z.object({ start_time: z.string(), end_time: z.string(), ...analysisShape });

/** Examples kept per group. */
export const MAX_EXAMPLES = 5;
/** Groups a judge labels per request (the largest first). */
export const MAX_LABELED_GROUPS = 10;
/** Traces with errors examined per production request: default and most. */
export const DEFAULT_FAILURE_TRACES = 200;
export const MAX_FAILURE_TRACES = 1000;

const labelFlag = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((v) => v === 'true' || v === '1');

/** GET /api/runs/{id}/failures */
export const RunFailureQuerySchema = z.object({ label: labelFlag });

/** GET /api/failures: the window (range or start_time/end_time, 24 h by default), how many traces with errors to examine, labels. */
export const TraceFailureQuerySchema = WindowSchema.omit({ interval: true })
  .extend({ limit: z.coerce.number().int().min(1).max(MAX_FAILURE_TRACES).default(DEFAULT_FAILURE_TRACES), label: labelFlag })
  .transform((v, ctx) => {
    const window = resolveTimeWindow(v, ctx, '24h');
    return window ? { ...window, limit: v.limit, label: v.label } : z.NEVER;
  });
export type TraceFailureQuery = z.output<typeof TraceFailureQuerySchema>;
