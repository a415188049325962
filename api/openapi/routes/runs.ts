import { z } from 'zod';
import { CompleteLocalRunSchema, CreateEvalRunSchema, CreateLocalRunSchema, CreateRunSchema, LocalResultsSchema } from '../../../core/model/eval-run.js';
import { RunFailureAnalysisSchema, RunFailureQuerySchema, TraceFailureAnalysisSchema, TraceFailureQuerySchema } from '../../../core/model/failures.js';
import {
  ApprovalAnswerSchema,
  ApprovalListSchema,
  CaseCancelAnswerSchema,
  RunControlAnswerSchema,
  CaseResultListSchema,
  LocalResultsAnswerSchema,
  RunComparisonSchema,
  RunListSchema,
  RunStatusSchema,
  RunViewSchema,
} from '../../../core/model/answers-evals.js';
import { ApprovalBody, CaseIndex, ListQuery as RunListQuery } from '../../routes/runs.js';
import { CompareSchema, ResultsQuery } from '../../routes/run-params.js';
import { defineRoutes, NoContent, type RouteFields, routeGroup } from '../route-spec.js';

/** Eval runs (both families) and failure analysis (api/openapi/registry.ts). */
const deleted = { 204: NoContent };

const runs = routeGroup('Runs', { read: 'evals:read', write: 'evals:run' });
const failures = routeGroup('Failures', 'evals:read');

/** Routes served alike at an /api/evals/... path and an /api/... path: the same fields for both. */
const runResults: RouteFields = { query: ResultsQuery, answers: { 200: CaseResultListSchema }, errors: [404] };
const runComparison: RouteFields = { access: 'evals:read', body: CompareSchema, answers: { 200: RunComparisonSchema }, errors: [404] };
const runFailures: RouteFields = { query: RunFailureQuerySchema, answers: { 200: RunFailureAnalysisSchema }, errors: [404] };

export const RUNS_ROUTES = defineRoutes([
  runs.post('/api/evals/runs', 'createEvalRun', 'Run a stored suite by name (managed)', {
    body: CreateEvalRunSchema,
    answers: { 202: RunViewSchema },
    errors: [404, 409],
    idempotent: true,
  }),
  runs.get('/api/evals/runs/{id}', 'getEvalRun', 'A run', { answers: { 200: RunViewSchema }, errors: [404] }),
  runs.get('/api/evals/runs/{id}/results', 'listEvalRunResults', "A run's case results", runResults),
  runs.post('/api/evals/compare', 'compareEvalRuns', 'Compare two runs case by case', runComparison),
  runs.post('/api/runs', 'createRun', 'Start a run of an inline dataset (managed, 202) or create a local run (execution "local", 201)', {
    body: z.union([CreateRunSchema, CreateLocalRunSchema]),
    answers: { 201: RunViewSchema, 202: RunViewSchema },
    errors: [404, 409],
    idempotent: true,
  }),
  runs.post('/api/runs/{id}/results', 'addRunResults', 'Upload case trials of a local run', {
    body: LocalResultsSchema,
    answers: { 200: LocalResultsAnswerSchema },
    errors: [404, 409],
  }),
  runs.post('/api/runs/{id}/complete', 'completeRun', 'End a local run', {
    body: CompleteLocalRunSchema,
    bodyOptional: true,
    answers: { 200: RunViewSchema },
    errors: [404, 409],
  }),
  runs.get('/api/runs', 'listRuns', 'Runs, newest first', { query: RunListQuery, answers: { 200: RunListSchema } }),
  runs.get('/api/runs/{id}', 'getRun', 'A run', { answers: { 200: RunViewSchema }, errors: [404] }),
  runs.delete('/api/runs/{id}', 'deleteRun', 'Delete a final run and its results', { access: 'evals:write', answers: deleted, errors: [404, 409] }),
  runs.get('/api/runs/{id}/status', 'getRunStatus', "A run's status and progress", { answers: { 200: RunStatusSchema }, errors: [404] }),
  runs.get('/api/runs/{id}/approvals', 'listRunApprovals', 'Tool calls of a run waiting for approval', { answers: { 200: ApprovalListSchema }, errors: [404] }),
  runs.post('/api/runs/{id}/control', 'controlRun', 'Pause, resume or cancel a run', {
    body: z.object({ action: z.enum(['pause', 'resume', 'cancel']) }),
    answers: { 202: RunControlAnswerSchema },
    errors: [404, 409],
  }),
  runs.post('/api/runs/{id}/cases/{index}/cancel', 'cancelRunCase', 'Cancel one case of a run', {
    params: { index: CaseIndex },
    answers: { 202: CaseCancelAnswerSchema },
    errors: [404, 409],
  }),
  runs.post('/api/runs/{id}/cases/{index}/approval', 'approveRunCase', "Approve or refuse a case's pending tool call", {
    params: { index: CaseIndex },
    body: ApprovalBody,
    answers: { 202: ApprovalAnswerSchema },
    errors: [404, 409],
  }),
  runs.get('/api/runs/{id}/results', 'listRunResults', "A run's case results", runResults),
  runs.post('/api/compare', 'compareRuns', 'Compare two runs case by case', runComparison),
  failures.get('/api/runs/{id}/failures', 'listRunFailures', "A run's failures grouped by signature", runFailures),
  failures.get('/api/evals/runs/{id}/failures', 'listEvalRunFailures', "A run's failures grouped by signature", runFailures),
  failures.get('/api/failures', 'listTraceFailures', "Production traces' failures in a time range, grouped by signature", {
    access: 'traces:read',
    query: TraceFailureQuerySchema,
    answers: { 200: TraceFailureAnalysisSchema },
  }),
]);
