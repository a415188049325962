import { z } from 'zod';
import { resolveWindow, WindowSchema, type AnalyticsWindow } from './analytics.js';

/**
 * Cost analytics (GET /api/analytics/costs, docs/api.md "Analytics"): what the project's model
 * calls cost over a window, by one grouping, per bucket, with the most expensive traces and
 * sessions. Money is USD at list prices (docs/costs.md).
 */

/**
 * What the cost is grouped by: the generation span's model; the agent (the service that sent the
 * span, `service.name`); the prompt (name and version the span names, as prompt links read them);
 * the trace's end user and session; the evaluation run whose case the trace is (its suite, by the
 * run, in the answer).
 */
export const COST_GROUPS = ['model', 'agent', 'prompt', 'user', 'session', 'suite'] as const;
export type CostGroup = (typeof COST_GROUPS)[number];

/** Most groups drawn; the rest are summed as one group, `other`. */
export const MAX_COST_GROUPS = 12;
/** Most expensive traces and sessions listed. */
export const MAX_TOP_COSTS = 10;

/** GET /api/analytics/costs */
export const CostBreakdownQuerySchema = WindowSchema.extend({ group_by: z.enum(COST_GROUPS).default('model') }).transform(resolveWindow);
export type CostBreakdownQuery = z.output<typeof CostBreakdownQuerySchema>;

export interface CostGroupSeries {
  /** The group's value ('' for spans without one: no model, no user, not an evaluation...); `other` is the rest summed. */
  key: string;
  /** For `suite`: the suite of the run (`key` is the run's id); null when the run is gone or had no suite. */
  label?: string | null;
  cost_usd: number[];
  tokens: number[];
  total_cost_usd: number;
  total_tokens: number;
  /** Traces with a model call in the group. */
  traces: number;
}

export interface CostBreakdown extends AnalyticsWindow {
  group_by: CostGroup;
  /** The most expensive groups first. */
  groups: CostGroupSeries[];
  /** More groups than MAX_COST_GROUPS: the rest are the last group, key `other`. */
  groups_truncated: boolean;
  total: { cost_usd: number; tokens: number; traces: number; unpriced_llm_calls: number };
  /** The traces started in the window that cost the most. */
  top_traces: Array<{ trace_id: string; name: string; start_time: string; cost_usd: number; tokens: number }>;
  /** The sessions whose traces started in the window cost the most (their traces in the window). */
  top_sessions: Array<{ session_id: string; cost_usd: number; traces: number }>;
}
