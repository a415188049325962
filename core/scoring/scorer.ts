import type { z } from 'zod';
import type { Expected, ScoreDetail, ScorerRef, TokenUsage, ToolCall } from '../model/eval-case.js';
import type { SpanTree } from './trajectory/span-tree.js';
import type { ConversationView } from '../model/conversation.js';

/** What a scorer sees of one case execution. */
export interface ScoreInput {
  /** The case's input, as sent to the agent. */
  input: unknown;
  /** The agent's answer (`output` of its response). */
  output: unknown;
  expected: Expected;
  toolCalls: ToolCall[];
  usage?: TokenUsage;
  /** Wall time of the agent call, in milliseconds. */
  latencyMs: number;
  /**
   * The execution's spans: what judges and HTTP scorers see as `trace`, and what the trajectory
   * scorers' tree is built from. In an eval run, the case's whole trace once it settled (the agent
   * call, the spans the agent exported into it, those it returned: workflows/trial-trace.ts); in
   * online evaluation, the stored trace's.
   */
  trace?: ScoreTrace;
  /**
   * The execution's trace as a span tree of normalized spans (core/scoring/trajectory/span-tree.ts):
   * what the trajectory scorers read (docs/scorers.md "Trajectory scorers"). Optional: without it
   * they build one from `trace.spans` (spanTreeOf, trace-view.ts); other scorers ignore it.
   */
  spanTree?: SpanTree;
  /**
   * The whole conversation, for conversation-level scorers (issue 30; Scorer.readsConversation):
   * a multi-turn trial's turns once it ended, or a production session's. Absent for single-turn cases.
   */
  conversation?: ConversationView;
  /** The scorer's own config from the suite or run (already checked by its configSchema). */
  config: Record<string, unknown>;
  /**
   * The eval run the execution belongs to, for budgets its cases share (the `regex` scorer's
   * search time: docs/scorers.md). Absent for online evaluations and the SDK's local runs.
   */
  runId?: string;
}

/** Spans of the execution being scored, in the ingest shape (name, type, input, output, attributes...). */
export interface ScoreTrace {
  trace_id?: string;
  spans: Array<Record<string, unknown>>;
}

/**
 * One scorer behind the one interface rule-based scorers, LLM judges and HTTP custom scorers
 * share. `evaluate` returns a score in 0..1 with a reason and evidence; it may throw (the run
 * records 0 with the error as the reason and goes on with the other scorers).
 */
export interface Scorer {
  name: string;
  kind: 'rule' | 'judge' | 'custom';
  description: string;
  /** Checks the `config` of a ScorerRef when a suite or run is created. */
  configSchema: z.ZodType<Record<string, unknown>>;
  evaluate(input: ScoreInput, signal?: AbortSignal): ScoreDetail | Promise<ScoreDetail>;
  /**
   * Why this scorer cannot run in this process with this (already checked) config, e.g. an LLM
   * judge with no provider configured; undefined when it can. Refused with a 400 at creation.
   */
  unavailable?(config: Record<string, unknown>): string | undefined;
  /**
   * Set on conversation-level scorers: they score a whole conversation (ScoreInput.conversation)
   * and run once when it ended, never on a single turn; a run refuses them on a single-turn case.
   */
  readsConversation?: boolean;
}

/** A problem with a scorer reference, found when a suite or run is created. */
export interface ScorerRefIssue {
  /** Index in the list checked. */
  index: number;
  message: string;
}

/** The scorers a process knows, by name. */
export interface ScorerRegistry {
  names(): string[];
  get(name: string): Scorer | undefined;
  /** Every problem with `refs`: unknown names and configs their scorer refuses. Empty when all is well. */
  check(refs: readonly ScorerRef[]): ScorerRefIssue[];
  /** Known, well-configured scorers that cannot run here (see Scorer.unavailable); checked after `check`. */
  unavailable(refs: readonly ScorerRef[]): ScorerRefIssue[];
}
