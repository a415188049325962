/**
 * agent-eval's TypeScript SDK (`import {init, trace} from 'agent-eval/sdk'`): tracing on
 * OpenTelemetry, evaluations run locally or on the service, experiments, and a typed client for
 * every endpoint. docs/sdk.md is the guide.
 */

export { init, createTracing, getTracing, trace, span, generation, tool, flush, shutdown } from './global.js';
export { Tracing, SpanHandle, traceparent, traceHeaders, withTraceparent, type TracingOptions, type SpanOptions } from './tracing.js';
export {
  SPAN_KINDS,
  selectionAttributes,
  generationAttributes,
  toolAttributes,
  type SpanKind,
  type GenerationFields,
  type ToolFields,
  type SelectionFields,
  type Usage,
} from './attributes.js';

export {
  AgentEvalClient,
  type ClientOptions,
  type HealthView,
  type RunStatusView,
  type RunList,
  type RunListParams,
  type TraceListParams,
  type SessionListParams,
  type SuiteInput,
  type LocalResultsAnswer,
} from './client.js';
export { AgentEvalError, ServiceApiError, ServiceUnreachableError, EvaluationRunError, ExperimentValidationError } from './errors.js';

export { defineScorer, scorerRegistry, type ScorerDefinition, type ScorerDataType, type ScorerVerdict } from './scorers.js';
export { defineSuite, loadSuite, InvalidSuiteError, SuiteFileError, type Suite, type SuiteDefinitionInput } from './suites.js';
export {
  evaluate,
  reply,
  AgentReply,
  type AgentFunction,
  type AgentContext,
  type EvaluateOptions,
  type EvaluateProgress,
  type EvaluationResult,
  type CaseOutcome,
  type TurnProgress,
} from './evaluate.js';
export type { SimulatedUserFunction, SimulatedUserRequest, SimulatedUserReply } from './simulated-user.js';
export { startRun, waitForRun, type StartRunOptions, type WaitOptions } from './managed.js';
export {
  defineExperiment,
  Experiment,
  experimentProblems,
  type ExperimentDefinition,
  type VariantDefinition,
  type Variant,
  type ExperimentResult,
  type VariantResult,
  type TreatmentResult,
} from './experiments.js';

// The shared model, for code that handles what the client returns.
export type { RunView, CaseResultView, RunSummary, RunStatus, RunExecution, TrialRecord, TurnResult, ConversationRecord } from '../core/model/eval-run.js';
export type { ScriptedTurn, Simulation, SimulatedUserTurn, ConversationEnd, ConversationView, ConversationTurnView } from '../core/model/conversation.js';
export type { RunComparison, Significance } from '../core/evals/compare.js';
export type { SuiteDefinition, SuiteSummary, SuiteVersion } from '../core/model/suite.js';
export type { Scorer, ScoreInput } from '../core/scoring/index.js';
export type { ScoreDetail, ToolCall, TokenUsage, Expected } from '../core/model/eval-case.js';
export type { TraceDetail, TraceList, SpanView, TraceSpanView } from '../core/model/trace.js';
export type { LlmConversation, LlmMessage, LlmToolCall, LlmToolDefinition, LlmParameters } from '../core/model/messages.js';
export type { Score } from '../core/model/score.js';
export type { Agent } from '../core/model/agent.js';
