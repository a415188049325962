import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { BadRequestError, NotFoundError, ValidationError } from '../../core/errors.js';
import { isUuid } from '../../core/model/agent.js';
import {
  ALERT_EVENT_KINDS,
  ALERT_STATES,
  DEFINITION_KEYS,
  mergeAlertRule,
  parseAlertRule,
  type AlertRule,
  type AlertRuleDefinition,
} from '../../core/model/alert.js';
import { Timestamp } from '../../core/model/ingest-body.js';
import { validate } from '../../core/validate.js';
import { urlForAudit } from '../../core/audit/audit-log.js';
import type { ApiDeps } from '../deps.js';
import { auditFrom } from '../audit-context.js';
import { assertEgressAllowed } from '../egress-check.js';
import { operation } from '../middleware/errors.js';
import { readWriteGuards } from '../middleware/permission.js';
import { flagQuery, pageQuery, timeBound } from './page-query.js';
import { orNotFound } from './or-not-found.js';

/** Largest page of GET /api/alerts/rules and /api/alerts/events. */
export const MAX_ALERT_PAGE = 1000;

export const RuleListQuerySchema = pageQuery(MAX_ALERT_PAGE).extend({
  enabled: flagQuery(),
  state: z.enum(ALERT_STATES).optional(),
});

export const EventListQuerySchema = pageQuery(MAX_ALERT_PAGE).extend({
  rule_id: z.string().refine(isUuid, 'must be an alert rule id (a UUID)').optional(),
  kind: z.enum(ALERT_EVENT_KINDS).optional(),
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
});

function ruleNotFound(): NotFoundError {
  return new NotFoundError('Alert rule not found', 'ALERT_RULE_NOT_FOUND');
}

/** `DELETE /api/alerts/rules?id=` (SPEC): a missing or empty id is the SPEC's 400. */
function idFromQuery(ctx: Context): string {
  const id = ctx.query.id;
  if (Array.isArray(id)) throw new ValidationError([{ field: 'id', message: 'must be given once' }]);
  if (id === undefined || id.trim() === '') throw new BadRequestError('id query parameter is required', 'ID_REQUIRED');
  return id.trim();
}

function definitionOf(rule: AlertRule): AlertRuleDefinition {
  return Object.fromEntries(DEFINITION_KEYS.map((k) => [k, rule[k]])) as unknown as AlertRuleDefinition;
}

/** /api/alerts: alert rules on metrics and the events their evaluations record (docs/alerts.md). */
export function alertsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/alerts' });
  const alerts = deps.metadata.alerts;
  const { read, write } = readWriteGuards('alerts');

  /** Where a rule's notifications go, recorded when it changes (set, moved or removed): never the URL itself, which may be a secret. */
  async function webhookChanged(ctx: Context, rule: Pick<AlertRule, 'id' | 'name'>, from: string | null | undefined, to: string | null | undefined) {
    if ((from ?? null) === (to ?? null)) return;
    await deps.audit.record({
      ...auditFrom(ctx),
      action: 'alert_webhook.changed',
      projectId: ctx.state.projectId,
      target: rule.id,
      details: { rule: rule.name, from: urlForAudit(from), to: urlForAudit(to) },
    });
  }

  router.post('/rules', operation('create alert rule', 'metadata'), write, async (ctx) => {
    const def = parseAlertRule(ctx.request.body);
    await assertEgressAllowed(deps, [{ field: 'webhook_url', url: def.webhook_url }]);
    const rule = await alerts.create(ctx.state.projectId, def);
    await webhookChanged(ctx, rule, null, rule.webhook_url);
    ctx.body = rule;
    ctx.status = 201;
  });

  router.get('/rules', operation('fetch alert rules', 'metadata'), read, async (ctx) => {
    ctx.body = await alerts.list(ctx.state.projectId, validate(RuleListQuerySchema, ctx.query));
  });

  router.get('/rules/:id', operation('fetch alert rule', 'metadata'), read, async (ctx) => {
    ctx.body = orNotFound(await alerts.get(ctx.state.projectId, ctx.params.id), ruleNotFound);
  });

  router.put('/rules/:id', operation('update alert rule', 'metadata'), write, async (ctx) => {
    const stored = await alerts.get(ctx.state.projectId, ctx.params.id);
    if (!stored) throw ruleNotFound();
    const def = mergeAlertRule(definitionOf(stored), ctx.request.body);
    await assertEgressAllowed(deps, [{ field: 'webhook_url', url: def.webhook_url }]);
    const rule = await alerts.update(ctx.state.projectId, stored.id, def);
    if (!rule) throw ruleNotFound();
    await webhookChanged(ctx, rule, stored.webhook_url, rule.webhook_url);
    ctx.body = rule;
  });

  const remove = async (ctx: Context, id: string) => {
    const rule = await alerts.get(ctx.state.projectId, id);
    if (!rule || !(await alerts.delete(ctx.state.projectId, id))) throw ruleNotFound();
    await webhookChanged(ctx, rule, rule.webhook_url, null);
    ctx.status = 204;
  };
  router.delete('/rules', operation('delete alert rule', 'metadata'), write, (ctx) => remove(ctx, idFromQuery(ctx)));
  router.delete('/rules/:id', operation('delete alert rule', 'metadata'), write, (ctx) => remove(ctx, ctx.params.id));

  router.get('/events', operation('fetch alert events', 'metadata'), read, async (ctx) => {
    const q = validate(EventListQuerySchema, ctx.query);
    ctx.body = await alerts.listEvents(ctx.state.projectId, {
      limit: q.limit,
      offset: q.offset,
      rule_id: q.rule_id,
      kind: q.kind,
      start_time: timeBound(q.start_time),
      end_time: timeBound(q.end_time),
    });
  });

  return router;
}
