import { z } from 'zod';
import { AlertRuleBodySchema } from '../../../core/model/alert.js';
import {
  AlertEventListSchema,
  AlertRuleListSchema,
  AlertRuleSchema,
  CalibrationListSchema,
  ComponentHealthSchema,
  JudgeCalibrationAnswerSchema,
  MetricSeriesSchema,
  OnlineEvaluationListSchema,
  OnlineRuleListSchema,
  OnlineRulePatchSchema,
  OnlineRuleSchema,
  ScoreCorrelationSchema,
  ScoreTrendsSchema,
  ToolAnalyticsSchema,
  CostBreakdownSchema,
} from '../../../core/model/answers-monitoring.js';
import { CostBreakdownQuerySchema } from '../../../core/model/cost-analytics.js';
import { OnlineRuleBodySchema } from '../../../core/model/online-rule.js';
import {
  ComponentHealthQuerySchema,
  CorrelationQuerySchema,
  MetricSeriesQuerySchema,
  ScoreTrendsQuerySchema,
  ToolAnalyticsQuerySchema,
} from '../../../core/model/analytics.js';
import { CalibrationListQuerySchema, JudgeCalibrationQuerySchema } from '../../../core/model/calibration.js';
import { EventListQuerySchema, RuleListQuerySchema as AlertRuleListQuery } from '../../routes/alerts.js';
import { EvaluationListQuerySchema, RuleListQuerySchema as OnlineRuleListQuery } from '../../routes/online-rules.js';
import { defineRoutes, NoContent, routeGroup } from '../route-spec.js';

/** Alerts, online evaluation, analytics and judge calibration (api/openapi/registry.ts). */
const deleted = { 204: NoContent };

const alertsRoutes = routeGroup('Alerts', 'alerts:write');
const onlineEvaluationRoutes = routeGroup('Online evaluation', 'evals:write');
const analyticsRoutes = routeGroup('Analytics', 'traces:read');
const judgesRoutes = routeGroup('Judges', 'traces:read');

export const MONITORING_ROUTES = defineRoutes([
  alertsRoutes.post('/api/alerts/rules', 'createAlertRule', 'Create an alert rule', { body: AlertRuleBodySchema, answers: { 201: AlertRuleSchema } }),
  alertsRoutes.get('/api/alerts/rules', 'listAlertRules', 'Alert rules', {
    access: 'alerts:read',
    query: AlertRuleListQuery,
    answers: { 200: AlertRuleListSchema },
  }),
  alertsRoutes.get('/api/alerts/rules/{id}', 'getAlertRule', 'An alert rule', { access: 'alerts:read', answers: { 200: AlertRuleSchema }, errors: [404] }),
  alertsRoutes.put('/api/alerts/rules/{id}', 'updateAlertRule', 'Merge fields into an alert rule', {
    body: AlertRuleBodySchema.partial(),
    answers: { 200: AlertRuleSchema },
    errors: [404],
  }),
  alertsRoutes.delete('/api/alerts/rules', 'deleteAlertRuleByQuery', 'Delete an alert rule named by `?id=`', {
    query: z.object({ id: z.string() }),
    answers: deleted,
    errors: [404],
  }),
  alertsRoutes.delete('/api/alerts/rules/{id}', 'deleteAlertRule', 'Delete an alert rule', { answers: deleted, errors: [404] }),
  alertsRoutes.get('/api/alerts/events', 'listAlertEvents', 'Alert events (fired, resolved, delivery)', {
    access: 'alerts:read',
    query: EventListQuerySchema,
    answers: { 200: AlertEventListSchema },
  }),
  onlineEvaluationRoutes.post('/api/evals/online-rules', 'createOnlineRule', 'Create an online evaluation rule', {
    body: OnlineRuleBodySchema,
    answers: { 201: OnlineRuleSchema },
  }),
  onlineEvaluationRoutes.get('/api/evals/online-rules', 'listOnlineRules', 'Online evaluation rules', {
    access: 'evals:read',
    query: OnlineRuleListQuery,
    answers: { 200: OnlineRuleListSchema },
  }),
  onlineEvaluationRoutes.get('/api/evals/online-rules/{id}', 'getOnlineRule', 'A rule with its stats', {
    access: 'evals:read',
    answers: { 200: OnlineRuleSchema },
    errors: [404],
  }),
  onlineEvaluationRoutes.put('/api/evals/online-rules/{id}', 'updateOnlineRule', 'Merge fields into a rule', {
    body: OnlineRulePatchSchema,
    answers: { 200: OnlineRuleSchema },
    errors: [404],
  }),
  onlineEvaluationRoutes.patch('/api/evals/online-rules/{id}', 'patchOnlineRule', 'Merge fields into a rule', {
    body: OnlineRulePatchSchema,
    answers: { 200: OnlineRuleSchema },
    errors: [404],
  }),
  onlineEvaluationRoutes.delete('/api/evals/online-rules/{id}', 'deleteOnlineRule', 'Delete a rule', { answers: deleted, errors: [404] }),
  onlineEvaluationRoutes.get('/api/evals/online-rules/{id}/evaluations', 'listOnlineEvaluations', "A rule's evaluations", {
    access: 'evals:read',
    query: EvaluationListQuerySchema,
    answers: { 200: OnlineEvaluationListSchema },
    errors: [404],
  }),
  analyticsRoutes.get('/api/analytics/scores', 'scoreTrends', 'Score trends over time', { query: ScoreTrendsQuerySchema, answers: { 200: ScoreTrendsSchema } }),
  analyticsRoutes.get('/api/analytics/components', 'componentHealth', 'Health per component type and model', {
    query: ComponentHealthQuerySchema,
    answers: { 200: ComponentHealthSchema },
  }),
  analyticsRoutes.get('/api/analytics/timeseries', 'metricSeries', 'A metric over time', {
    query: MetricSeriesQuerySchema,
    answers: { 200: MetricSeriesSchema },
  }),
  analyticsRoutes.get('/api/analytics/correlation', 'scoreCorrelation', 'A score against latency or tokens', {
    query: CorrelationQuerySchema,
    answers: { 200: ScoreCorrelationSchema },
  }),
  analyticsRoutes.get(
    '/api/analytics/costs',
    'costAnalytics',
    'What model calls cost by model, agent, prompt, user, session or suite, with the costliest traces and sessions',
    { query: CostBreakdownQuerySchema, answers: { 200: CostBreakdownSchema } },
  ),
  analyticsRoutes.get('/api/analytics/tools', 'toolAnalytics', 'Per tool: calls, errors, latency, argument mismatches', {
    query: ToolAnalyticsQuerySchema,
    answers: { 200: ToolAnalyticsSchema },
  }),
  judgesRoutes.get('/api/judges/calibration', 'listJudgeCalibrations', "Judges' agreement with people", {
    query: CalibrationListQuerySchema,
    answers: { 200: CalibrationListSchema },
  }),
  judgesRoutes.get('/api/judges/{name}/calibration', 'getJudgeCalibration', "A judge's agreement with people", {
    query: JudgeCalibrationQuerySchema,
    answers: { 200: JudgeCalibrationAnswerSchema },
  }),
]);
