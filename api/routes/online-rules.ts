import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import {
  DEFINITION_KEYS,
  EVALUATION_STATUSES,
  mergeOnlineRule,
  parseOnlineRule,
  type OnlineRule,
  type OnlineRuleDefinition,
} from '../../core/model/online-rule.js';
import { pgText } from '../../core/model/pg-json.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { readWriteGuards } from '../middleware/permission.js';
import { assertScorersRunnable, scorersFor } from '../project-scorers.js';
import { flagQuery, pageQuery } from './page-query.js';
import { orNotFound } from './or-not-found.js';

/** Largest page of GET /api/evals/online-rules and of a rule's evaluations. */
export const MAX_ONLINE_PAGE = 1000;

export const RuleListQuerySchema = pageQuery(MAX_ONLINE_PAGE).extend({ enabled: flagQuery() });

export const EvaluationListQuerySchema = pageQuery(MAX_ONLINE_PAGE).extend({
  status: z.enum(EVALUATION_STATUSES).optional(),
  /** A trace rule's evaluations of one trace. */
  trace_id: pgText(512).min(1).optional(),
  /** A session rule's evaluations of one session (each generation). */
  session_id: pgText(256).min(1).optional(),
});

function ruleNotFound(): NotFoundError {
  return new NotFoundError('Online rule not found', 'ONLINE_RULE_NOT_FOUND');
}

function definitionOf(rule: OnlineRule): OnlineRuleDefinition {
  return Object.fromEntries(DEFINITION_KEYS.map((k) => [k, rule[k]])) as unknown as OnlineRuleDefinition;
}

/**
 * The rule's scorers against the project's registry, as suites and runs are checked: an unknown
 * scorer or a config its scorer refuses is a 422 naming `scorers[i]`; a scorer that cannot run
 * here (an LLM judge with no provider configured) a 400. A conversation-level scorer scores a
 * whole session: a trace rule refuses it (422), a session rule takes any scorer (docs/online-evals.md).
 */
async function checkScorers(deps: ApiDeps, ctx: Context, def: OnlineRuleDefinition): Promise<void> {
  const registry = await scorersFor(deps, ctx.state.projectId);
  const issues = registry.check(def.scorers).map((issue) => ({ field: `scorers[${issue.index}]`, message: issue.message }));
  if (def.target === 'trace')
    def.scorers.forEach((ref, i) => {
      if (registry.get(ref.name)?.readsConversation)
        issues.push({
          field: `scorers[${i}]`,
          message: `'${ref.name}' scores a whole conversation: use it in a session rule (target "session"), which scores each session once it is idle`,
        });
    });
  if (issues.length) throw new ValidationError(issues);
  assertScorersRunnable(registry, [{ field: 'scorers', refs: def.scorers }]);
}

/** /api/evals/online-rules: rules that score production traces as they arrive, or sessions once idle (docs/online-evals.md). */
export function onlineRulesRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/evals/online-rules' });
  const store = deps.metadata.onlineEvals;
  const { read, write } = readWriteGuards('evals');

  router.post('/', operation('create online rule', 'metadata'), write, async (ctx) => {
    const { definition, since } = parseOnlineRule(ctx.request.body);
    await checkScorers(deps, ctx, definition);
    ctx.body = await store.create(ctx.state.projectId, definition, since ?? Date.now());
    ctx.status = 201;
  });

  router.get('/', operation('fetch online rules', 'metadata'), read, async (ctx) => {
    ctx.body = await store.list(ctx.state.projectId, validate(RuleListQuerySchema, ctx.query));
  });

  router.get('/:id', operation('fetch online rule', 'metadata'), read, async (ctx) => {
    ctx.body = orNotFound(await store.get(ctx.state.projectId, ctx.params.id), ruleNotFound);
  });

  const update = async (ctx: Context, id: string) => {
    const stored = await store.get(ctx.state.projectId, id);
    if (!stored) throw ruleNotFound();
    const def = mergeOnlineRule(definitionOf(stored), ctx.request.body);
    await checkScorers(deps, ctx, def);
    ctx.body = orNotFound(await store.update(ctx.state.projectId, stored.id, def), ruleNotFound);
  };
  // Both merge the body into the stored rule ({"enabled": false} pauses it).
  router.put('/:id', operation('update online rule', 'metadata'), write, (ctx) => update(ctx, ctx.params.id));
  router.patch('/:id', operation('update online rule', 'metadata'), write, (ctx) => update(ctx, ctx.params.id));

  router.delete('/:id', operation('delete online rule', 'metadata'), write, async (ctx) => {
    if (!(await store.delete(ctx.state.projectId, ctx.params.id))) throw ruleNotFound();
    ctx.status = 204;
  });

  router.get('/:id/evaluations', operation('fetch online evaluations', 'metadata'), read, async (ctx) => {
    const q = validate(EvaluationListQuerySchema, ctx.query);
    if (q.trace_id !== undefined || q.session_id !== undefined) {
      // Each filter names what its rule scores: a trace rule's traces, a session rule's sessions.
      const rule = await store.get(ctx.state.projectId, ctx.params.id);
      if (!rule) throw ruleNotFound();
      const foreign = rule.target === 'session' ? 'trace_id' : 'session_id';
      if (q[foreign] !== undefined)
        throw new ValidationError([
          { field: foreign, message: `filters a ${foreign === 'trace_id' ? 'trace' : 'session'} rule's evaluations; this is a ${rule.target} rule` },
        ]);
    }
    ctx.body = orNotFound(await store.listEvaluations(ctx.state.projectId, ctx.params.id, q), ruleNotFound);
  });

  return router;
}
