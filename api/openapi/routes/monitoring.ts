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
import { defineRoutes, NoContent, type RouteFields, routeGroup } from '../route-spec.js';

/** Alerts, online evaluation, analytics and judge calibration (api/openapi/registry.ts). */
const deleted = { 204: NoContent };

const alertsAccess = { read: 'alerts:read', write: 'alerts:write' } as const;
const onlineRulesAccess = { read: 'evals:read', write: 'evals:write' } as const;
const alerts = routeGroup('Alerts', alertsAccess);
const onlineRules = routeGroup('Online evaluation', onlineRulesAccess);
/** The routes of one rule answer 404 when there is no such rule. */
const alertRule = routeGroup('Alerts', alertsAccess, { errors: [404] });
const onlineRule = routeGroup('Online evaluation', onlineRulesAccess, { errors: [404] });
const analytics = routeGroup('Analytics', 'traces:read');
const judges = routeGroup('Judges', 'traces:read');

/** PUT and PATCH of an online rule both merge the fields sent. */
const mergeIntoRule: RouteFields = { body: OnlineRulePatchSchema, answers: { 200: OnlineRuleSchema } };

/** Analytics and calibration reads: each takes its query and answers one JSON object. */
const queryReads = (group: typeof analytics, reads: Array<[path: string, operationId: string, summary: string, query: z.ZodType, answer: z.ZodType]>) =>
  reads.map(([path, operationId, summary, query, answer]) => group.get(path, operationId, summary, { query, answers: { 200: answer } }));

export const MONITORING_ROUTES = defineRoutes([
  alerts.post('/api/alerts/rules', 'createAlertRule', 'Create an alert rule', { body: AlertRuleBodySchema, answers: { 201: AlertRuleSchema } }),
  alerts.get('/api/alerts/rules', 'listAlertRules', 'Alert rules', { query: AlertRuleListQuery, answers: { 200: AlertRuleListSchema } }),
  alertRule.get('/api/alerts/rules/{id}', 'getAlertRule', 'An alert rule', { answers: { 200: AlertRuleSchema } }),
  alertRule.put('/api/alerts/rules/{id}', 'updateAlertRule', 'Merge fields into an alert rule', {
    body: AlertRuleBodySchema.partial(),
    answers: { 200: AlertRuleSchema },
  }),
  alertRule.delete('/api/alerts/rules', 'deleteAlertRuleByQuery', 'Delete an alert rule named by `?id=`', {
    query: z.object({ id: z.string() }),
    answers: deleted,
  }),
  alertRule.delete('/api/alerts/rules/{id}', 'deleteAlertRule', 'Delete an alert rule', { answers: deleted }),
  alerts.get('/api/alerts/events', 'listAlertEvents', 'Alert events (fired, resolved, delivery)', {
    query: EventListQuerySchema,
    answers: { 200: AlertEventListSchema },
  }),
  onlineRules.post('/api/evals/online-rules', 'createOnlineRule', 'Create an online evaluation rule', {
    body: OnlineRuleBodySchema,
    answers: { 201: OnlineRuleSchema },
  }),
  onlineRules.get('/api/evals/online-rules', 'listOnlineRules', 'Online evaluation rules', {
    query: OnlineRuleListQuery,
    answers: { 200: OnlineRuleListSchema },
  }),
  onlineRule.get('/api/evals/online-rules/{id}', 'getOnlineRule', 'A rule with its stats', { answers: { 200: OnlineRuleSchema } }),
  onlineRule.put('/api/evals/online-rules/{id}', 'updateOnlineRule', 'Merge fields into a rule', mergeIntoRule),
  onlineRule.patch('/api/evals/online-rules/{id}', 'patchOnlineRule', 'Merge fields into a rule', mergeIntoRule),
  onlineRule.delete('/api/evals/online-rules/{id}', 'deleteOnlineRule', 'Delete a rule', { answers: deleted }),
  onlineRule.get('/api/evals/online-rules/{id}/evaluations', 'listOnlineEvaluations', "A rule's evaluations", {
    query: EvaluationListQuerySchema,
    answers: { 200: OnlineEvaluationListSchema },
  }),
  ...queryReads(analytics, [
    ['/api/analytics/scores', 'scoreTrends', 'Score trends over time', ScoreTrendsQuerySchema, ScoreTrendsSchema],
    ['/api/analytics/components', 'componentHealth', 'Health per component type and model', ComponentHealthQuerySchema, ComponentHealthSchema],
    ['/api/analytics/timeseries', 'metricSeries', 'A metric over time', MetricSeriesQuerySchema, MetricSeriesSchema],
    ['/api/analytics/correlation', 'scoreCorrelation', 'A score against latency or tokens', CorrelationQuerySchema, ScoreCorrelationSchema],
    [
      '/api/analytics/costs',
      'costAnalytics',
      'What model calls cost by model, agent, prompt, user, session or suite, with the costliest traces and sessions',
      CostBreakdownQuerySchema,
      CostBreakdownSchema,
    ],
    ['/api/analytics/tools', 'toolAnalytics', 'Per tool: calls, errors, latency, argument mismatches', ToolAnalyticsQuerySchema, ToolAnalyticsSchema],
  ]),
  ...queryReads(judges, [
    ['/api/judges/calibration', 'listJudgeCalibrations', "Judges' agreement with people", CalibrationListQuerySchema, CalibrationListSchema],
    ['/api/judges/{name}/calibration', 'getJudgeCalibration', "A judge's agreement with people", JudgeCalibrationQuerySchema, JudgeCalibrationAnswerSchema],
  ]),
]);
