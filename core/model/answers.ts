import { z } from 'zod';
import { object, offsetPageFields, Time } from './answer-fields.js';
import { COMPONENT_TYPES, CONVENTIONS, SPAN_TYPES } from './span.js';
import { SCORE_SOURCES, SCORE_TYPES } from './score.js';
import { spanCallShape } from './span-fields.js';

/**
 * What the most-used endpoints answer, as zod schemas: the OpenAPI document's answers
 * (api/openapi/registry.ts) and what the API tests validate every real answer against
 * (test/helpers/openapi-responses.ts); the agents, suites, runs and prompts ones are in
 * core/model/answers-evals.ts. Each mirrors the TypeScript type named in its comment,
 * which the stores and routes build; a field added to one is added to the other, or the tests'
 * answers stop matching. Nested parts that have a schema of their own elsewhere (an LLM
 * conversation, a run's config, a suite definition) are documented objects here.
 */

const StringMap = z.record(z.string(), z.string());
const Status = z.enum(['ok', 'error']);

// ---- Traces and spans (core/model/trace.ts) ----

const traceSummaryShape = {
  trace_id: z.string(),
  name: z.string(),
  status: Status,
  start_time: Time,
  end_time: Time,
  duration_ms: z.number(),
  span_count: z.number().int(),
  error_count: z.number().int(),
  total_input_tokens: z.number(),
  total_output_tokens: z.number(),
  tool_call_count: z.number().int(),
  llm_call_count: z.number().int(),
  total_cost: z.number().nullable().describe('USD over the priced generation spans; null when none is priced'),
  unpriced_llm_call_count: z.number().int(),
  attributes: StringMap,
  session_id: z.string().nullable(),
  user_id: z.string().nullable(),
};

/** TraceSummary. */
export const TraceSummarySchema = z.object(traceSummaryShape).meta({ id: 'TraceSummary' });

/** SpanCost (core/model/cost.ts). */
const SpanCostSchema = z.object({ input: z.number(), output: z.number(), cached_input: z.number(), total: z.number(), version: z.string() });

const spanShape = {
  span_id: z.string(),
  trace_id: z.string(),
  parent_span_id: z.string().nullable(),
  name: z.string(),
  type: z.enum(SPAN_TYPES),
  component_type: z.enum(COMPONENT_TYPES).nullable(),
  convention: z.enum(CONVENTIONS),
  kind: z.string().nullable(),
  status: Status,
  status_message: z.string().nullable(),
  start_time: Time,
  end_time: Time,
  ...spanCallShape,
  cached_input_tokens: z.number(),
  cost: SpanCostSchema.nullable(),
  attributes: StringMap,
  resource_attributes: StringMap,
  scope: z.object({ name: z.string(), version: z.string() }),
  events: z.array(z.object({ name: z.string(), time: z.number(), attributes: z.record(z.string(), z.unknown()) })),
  llm: object('A generation span\'s conversation in one shape for every convention (docs/api.md, "The llm field")').nullable().optional(),
};

/** SpanView: GET /api/spans/{id}. */
export const SpanViewSchema = z.object(spanShape).meta({ id: 'Span' });

/** TraceSpanView: a span of GET /api/traces/{id}, its texts cut. */
const TraceSpanViewSchema = z.object({ ...spanShape, input_truncated: z.boolean(), output_truncated: z.boolean() }).meta({ id: 'TraceSpan' });

/** TraceDetail: GET /api/traces/{id}. */
export const TraceDetailSchema = z
  .object({ ...traceSummaryShape, spans: z.array(TraceSpanViewSchema), spans_next_cursor: z.string().nullable() })
  .meta({ id: 'TraceDetail' });

/** TraceList: GET /api/traces. */
export const TraceListSchema = z
  .object({
    traces: z.array(
      z.object({
        ...traceSummaryShape,
        scores: z.array(z.object({ name: z.string(), value: z.number(), count: z.number().int() })),
        input_preview: z.string().nullable().describe("The root span's input: its first 120 characters on one line, '…' when cut; null when none"),
        output_preview: z.string().nullable().describe("The root span's output, likewise"),
      }),
    ),
    ...offsetPageFields,
    next_cursor: z.string().nullable(),
    search_truncated: z.boolean().optional(),
  })
  .meta({ id: 'TraceList' });

/** POST /api/traces/ingest. */
export const IngestAnswerSchema = z.object({ trace_id: z.string(), ingested: z.boolean(), spans_accepted: z.number().int() });
/** POST /api/spans. */
export const SpansAnswerSchema = z.object({ trace_id: z.string(), span_ids: z.array(z.string()), ingested: z.boolean() });

// ---- Sessions (core/model/trace-session.ts) ----

const sessionSummaryShape = {
  session_id: z.string(),
  trace_count: z.number().int(),
  start_time: Time,
  end_time: Time,
  duration_ms: z.number(),
  error_count: z.number().int(),
  total_input_tokens: z.number(),
  total_output_tokens: z.number(),
  total_cost: z.number().nullable(),
  user_ids: z.array(z.string()),
  first_trace_name: z.string(),
  scores: z.array(z.object({ name: z.string(), mean: z.number(), count: z.number().int() })),
  session_scores: z.array(
    z.object({
      name: z.string(),
      value: z.number(),
      reason: z.string().nullable(),
      score_id: z.string(),
      trace_id: z.string(),
      rule_id: z.string().nullable(),
      rule: z.string().nullable(),
      generation: z.number().int().nullable(),
      turns: z.number().int().nullable(),
      created_at: Time,
    }),
  ),
};

/** SessionList: GET /api/sessions. */
export const SessionListSchema = z
  .object({
    sessions: z.array(z.object(sessionSummaryShape)),
    total: z.number().int(),
    limit: z.number().int(),
    next_cursor: z.string().nullable(),
  })
  .meta({ id: 'SessionList' });

/** SessionDetail: GET /api/sessions/{id}. */
export const SessionDetailSchema = z
  .object({
    ...sessionSummaryShape,
    traces: z.array(
      z.object({
        ...traceSummaryShape,
        input: z.string().nullable(),
        output: z.string().nullable(),
        input_truncated: z.boolean(),
        output_truncated: z.boolean(),
      }),
    ),
    traces_truncated: z.boolean(),
  })
  .meta({ id: 'SessionDetail' });

// ---- Scores (core/model/score.ts) ----

/** Score. */
export const ScoreSchema = z
  .object({
    id: z.string(),
    trace_id: z.string(),
    span_id: z.string().nullable(),
    name: z.string(),
    value: z.number(),
    score_type: z.enum(SCORE_TYPES),
    source: z.enum(SCORE_SOURCES),
    scorer_name: z.string().nullable(),
    reason: z.string().nullable(),
    evidence: z.array(z.string()),
    created_at: Time,
    attributes: StringMap.optional(),
    session_id: z.string().optional(),
  })
  .meta({ id: 'Score' });

/** GET /api/scores. */
export const ScoreListSchema = z.object({ scores: z.array(ScoreSchema) });

const ServiceStatus = z.enum(['ok', 'unavailable', 'starting', 'not_configured']);

/** GET /api/health (api/routes/health.ts): 200 when healthy or degraded, 503 with the same body when unhealthy. */
export const HealthSchema = z
  .object({
    status: z.enum(['healthy', 'degraded', 'unhealthy']),
    version: z.string(),
    services: z.partialRecord(z.enum(['analytical_store', 'metadata_store', 'workflow_engine', 'streaming_buffer', 'data_dir']), ServiceStatus.optional()),
    reasons: z.record(z.string(), z.string()).optional().describe('Why each service that is not ok is not'),
    auth: z.string().describe('Whether calls need credentials: required or none'),
    ingest: z.looseObject({}).optional().describe("The write path's buffer: pending spans and bytes, drops, Kafka consumer lag"),
  })
  .meta({ id: 'Health' });
