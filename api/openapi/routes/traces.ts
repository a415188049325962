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
import { defineRoutes, NoContent, routeGroup } from '../route-spec.js';

/** Traces, spans, sessions and scores (api/openapi/registry.ts). */
const traces = routeGroup('Traces', { read: 'traces:read', write: 'traces:write' });
const deletion = routeGroup('Deletion', 'projects:admin');
const sessions = routeGroup('Sessions', 'traces:read');
const scores = routeGroup('Scores', { read: 'traces:read', write: 'traces:write' });

export const INGEST_ROUTES = defineRoutes([
  traces.post('/api/traces/ingest', 'ingestTrace', 'Ingest a trace and its spans (JSON)', {
    body: IngestTraceSchema,
    answers: { 201: IngestAnswerSchema },
    errors: [413, 415],
  }),
  traces.post('/api/spans', 'createSpans', 'Add spans to a trace: {trace_id, spans} or one span with its trace_id', {
    body: z.union([ManySpansSchema, OneSpanSchema]),
    answers: { 201: SpansAnswerSchema },
    errors: [413, 415],
  }),
]);

export const TRACES_ROUTES = defineRoutes([
  traces.get('/api/traces', 'listTraces', 'Traces, newest first, with filters and keyset paging', { query: TraceListQuery, answers: { 200: TraceListSchema } }),
  traces.get('/api/traces/{traceId}', 'getTrace', 'A trace and one page of its spans', {
    query: TraceQuerySchema,
    answers: { 200: TraceDetailSchema },
    errors: [404],
  }),
  deletion.delete('/api/traces/{traceId}', 'deleteTrace', 'Erase a trace, its spans and scores', {
    answers: { 202: DataDeletionSchema, 204: NoContent },
    errors: [404],
  }),
  traces.get('/api/spans/{spanId}', 'getSpan', 'A span whole', { answers: { 200: SpanViewSchema }, errors: [404] }),
  sessions.get('/api/sessions', 'listSessions', 'Sessions (conversations), latest activity first', {
    query: SessionListQuerySchema,
    answers: { 200: SessionListSchema },
  }),
  sessions.get('/api/sessions/{sessionId}', 'getSession', 'A session and its turns, oldest first', { answers: { 200: SessionDetailSchema }, errors: [404] }),
  scores.post('/api/scores', 'createScore', 'Record a score of a trace, span or session', {
    body: CreateScoreSchema,
    answers: { 201: ScoreSchema },
    errors: [409],
    idempotent: true,
  }),
  scores.get('/api/scores', 'listScores', "A trace's scores, newest first", {
    query: z.object({ trace_id: z.string().min(1) }),
    answers: { 200: ScoreListSchema },
  }),
]);
