import { z } from 'zod';
import { IngestTraceSchema, ManySpansSchema, OneSpanSchema } from '../../../core/model/ingest-body.js';
import { CreateScoreSchema } from '../../../core/model/score.js';
import {
  IngestAnswerSchema,
  ScoreListSchema,
  ScoreSchema,
  SessionDetailSchema,
  SessionListSchema,
  SpansAnswerSchema,
  SpanViewSchema,
  TraceDetailSchema,
  TraceListSchema,
} from '../../../core/model/answers.js';
import { ListQuerySchema as TraceListQuery, TraceQuerySchema } from '../../routes/traces.js';
import { SessionListQuerySchema } from '../../routes/trace-sessions.js';
import { DataDeletionSchema } from '../../../core/model/answers-admin.js';
import { defineRoutes, NoContent } from '../route-spec.js';

/** Traces, spans, sessions and scores (api/openapi/registry.ts). */
export const INGEST_ROUTES = defineRoutes([
  {
    method: 'post',
    path: '/api/traces/ingest',
    operationId: 'ingestTrace',
    summary: 'Ingest a trace and its spans (JSON)',
    tag: 'Traces',
    access: 'traces:write',
    body: IngestTraceSchema,
    answers: { 201: IngestAnswerSchema },
    errors: [413, 415],
  },
  {
    method: 'post',
    path: '/api/spans',
    operationId: 'createSpans',
    summary: 'Add spans to a trace: {trace_id, spans} or one span with its trace_id',
    tag: 'Traces',
    access: 'traces:write',
    body: z.union([ManySpansSchema, OneSpanSchema]),
    answers: { 201: SpansAnswerSchema },
    errors: [413, 415],
  },
]);

export const TRACES_ROUTES = defineRoutes([
  {
    method: 'get',
    path: '/api/traces',
    operationId: 'listTraces',
    summary: 'Traces, newest first, with filters and keyset paging',
    tag: 'Traces',
    access: 'traces:read',
    query: TraceListQuery,
    answers: { 200: TraceListSchema },
  },
  {
    method: 'get',
    path: '/api/traces/{traceId}',
    operationId: 'getTrace',
    summary: 'A trace and one page of its spans',
    tag: 'Traces',
    access: 'traces:read',
    query: TraceQuerySchema,
    answers: { 200: TraceDetailSchema },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/api/traces/{traceId}',
    operationId: 'deleteTrace',
    summary: 'Erase a trace, its spans and scores',
    tag: 'Deletion',
    access: 'projects:admin',
    answers: { 202: DataDeletionSchema, 204: NoContent },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/spans/{spanId}',
    operationId: 'getSpan',
    summary: 'A span whole',
    tag: 'Traces',
    access: 'traces:read',
    answers: { 200: SpanViewSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/sessions',
    operationId: 'listSessions',
    summary: 'Sessions (conversations), latest activity first',
    tag: 'Sessions',
    access: 'traces:read',
    query: SessionListQuerySchema,
    answers: { 200: SessionListSchema },
  },
  {
    method: 'get',
    path: '/api/sessions/{sessionId}',
    operationId: 'getSession',
    summary: 'A session and its turns, oldest first',
    tag: 'Sessions',
    access: 'traces:read',
    answers: { 200: SessionDetailSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/scores',
    operationId: 'createScore',
    summary: 'Record a score of a trace, span or session',
    tag: 'Scores',
    access: 'traces:write',
    body: CreateScoreSchema,
    answers: { 201: ScoreSchema },
    errors: [409],
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/scores',
    operationId: 'listScores',
    summary: "A trace's scores, newest first",
    tag: 'Scores',
    access: 'traces:read',
    query: z.object({ trace_id: z.string().min(1) }),
    answers: { 200: ScoreListSchema },
  },
]);
