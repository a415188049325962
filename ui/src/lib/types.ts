import type { ProjectView } from '../../../core/model/project.js';
import type { Role } from '../../../core/principal.js';

// The UI shows what the API answers: the one domain model of core/model (STYLE 4), imported as types only.
export type { TraceSummary, TraceList, TraceDetail, TraceSpanView, SpanView } from '../../../core/model/trace.js';
export type { Score } from '../../../core/model/score.js';
export type { ProjectView as Project } from '../../../core/model/project.js';
export type { ApiKeyView } from '../../../core/model/project.js';
export type { Feedback, FeedbackList, Comparison, ComparisonList, FeedbackType } from '../../../core/model/feedback.js';
export type { ReviewQueue, QueueList, QueueItem, ItemList, ScoreConfig, ItemCounts, SuiteCaseRef } from '../../../core/model/queue.js';
export type {
  PromptSummary,
  PromptList,
  PromptVersion,
  PromptVersionInfo,
  PromptVersionList,
  PromptLabels,
  PromptTraceLink,
  PromptTraceList,
  ChatMessage as PromptMessage,
} from '../../../core/model/prompt.js';
export type { SuiteSummary, SuiteList, SuiteVersion, SuiteVersionInfo, SuiteDefinition } from '../../../core/model/suite.js';
export type { ScorerRef } from '../../../core/model/eval-case.js';
export type { EvalCase } from '../../../core/model/case-schema.js';
export type { CaseField, CasesAdded } from '../../../core/model/dataset.js';
export type { Agent, AgentList } from '../../../core/model/agent.js';
export type {
  AlertRule,
  AlertRuleList,
  AlertEvent,
  AlertNotification,
  AlertEventList,
  AlertMetric,
  AlertOperator,
  AlertSeverity,
  AlertState,
  AlertEventKind,
  NoDataPolicy,
  DriftTest,
  DriftSource,
  DeliveryStatus,
} from '../../../core/model/alert.js';
export type { RunStatus, RunView, RunSummary, CaseResultView, TrialRecord } from '../../../core/model/eval-run.js';
export type { ScoreDetail } from '../../../core/model/eval-case.js';
export type { RunComparison, ScoreChange, CaseComparison, Significance } from '../../../core/evals/compare.js';
export type { ConversationComparison, TurnComparison, TurnSide, ScoreDelta, DivergenceReason } from '../../../core/evals/compare-turns.js';
export type { TurnResult, ConversationRecord } from '../../../core/model/eval-run.js';
export type { TraceListItem, TraceScoreSummary, TraceSortKey, TraceSource } from '../../../core/model/trace.js';
export type { SessionSummary, SessionList, SessionDetail, SessionTurn, SessionScore, SessionLevelScore } from '../../../core/model/trace-session.js';
export type { ComponentType } from '../../../core/model/span.js';
export type {
  ScoreTrends,
  ScoreSeries,
  ScoreNameCount,
  ComponentHealth,
  ComponentHealthRow,
  ToolAnalytics,
  ToolStats,
  MetricSeries,
  ScoreCorrelation,
  ScatterPoint,
  CorrelationMetric,
  ComponentFilter,
  IntervalName,
} from '../../../core/model/analytics.js';
export type { PendingApproval } from '../../../workflows/contract.js';
export type { CalibrationList, JudgeCalibration, JudgeCalibrationAnswer, AgreementLevel } from '../../../core/model/calibration.js';
export type { SpanCost, RunCost, TraceCost } from '../../../core/model/cost.js';
export type { LlmConversation, LlmMessage, LlmToolCall, LlmToolDefinition, LlmContentPart } from '../../../core/model/messages.js';
export type { AuthState, SessionView, MemberView, UserView } from '../../../core/model/user.js';

/** A project as the dashboard lists it: with the session's role there (absent with AUTH_MODE=none). */
export type ProjectRole = ProjectView & { role?: Role };

// The typed client's own parameter and answer shapes (sdk/api-types.ts).
export type { TraceListParams, SessionListParams, RunListParams, RunList, RunStatusView, HealthView } from '../../../sdk/browser.js';

// What the forms send: the input types of the schemas the API validates them with.
export type { AlertRuleBody } from '../../../core/model/alert.js';
export type { FeedbackBody } from '../../../core/model/feedback.js';
export type { CreateQueueBody } from '../../../core/model/queue.js';
export type AgentInput = import('zod').input<typeof import('../../../core/model/agent.js').CreateAgentSchema>;
export type ScoreInput = import('zod').input<typeof import('../../../core/model/score.js').CreateScoreSchema>;
export type { FailureGroup, RunFailureAnalysis } from '../../../core/model/failures.js';
