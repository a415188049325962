import Koa from 'koa';
import Router from '@koa/router';
import { NotFoundError } from '../core/errors.js';
import type { ApiDeps } from './deps.js';
import { errorMiddleware } from './middleware/errors.js';
import { jsonBody } from './middleware/json-body.js';
import { idempotency } from './middleware/idempotency.js';
import { patternCheckBudget } from './middleware/pattern-check-budget.js';
import { authenticate } from './middleware/auth.js';
import { requestText } from './middleware/request-text.js';
import { securityHeaders } from './middleware/security-headers.js';
import { healthRouter } from './routes/health.js';
import { metricsRouter } from './routes/metrics.js';
import { scoresRouter } from './routes/scores.js';
import { spansRouter } from './routes/spans.js';
import { tracesRouter } from './routes/traces.js';
import { traceSessionsRouter } from './routes/trace-sessions.js';
import { agentsRouter } from './routes/agents.js';
import { scorersRouter } from './routes/scorers.js';
import { SUITE_BODY_PATHS, suitesRouter } from './routes/suites.js';
import { suiteCasesRouter } from './routes/suite-cases.js';
import { evalRunsRouter } from './routes/eval-runs.js';
import { runsRouter } from './routes/runs.js';
import { feedbackRouter } from './routes/feedback.js';
import { queuesRouter } from './routes/queues.js';
import { alertsRouter } from './routes/alerts.js';
import { onlineRulesRouter } from './routes/online-rules.js';
import { promptsRouter } from './routes/prompts.js';
import { projectsRouter } from './routes/projects.js';
import { membersRouter } from './routes/members.js';
import { authRouter } from './routes/auth.js';
import { analyticsRouter } from './routes/analytics.js';
import { adminCostsRouter } from './routes/admin-costs.js';
import { adminProjectsRouter } from './routes/admin-projects.js';
import { adminBackupRouter } from './routes/admin-backup.js';
import { auditRouter } from './routes/audit.js';
import { deletionsRouter } from './routes/deletions.js';
import { judgeCalibrationRouter } from './routes/judge-calibration.js';
import { createRunService } from './run-service.js';
import { ingestRouter } from './ingest-routes.js';
import { uiMiddleware } from './ui.js';
import { openApiRouter } from './routes/openapi.js';
import { failuresRouter } from './routes/failures.js';
import { exportsRouter } from './routes/exports.js';
import { mcpRouter } from './mcp/route.js';

/** Builds the Koa app (it does not listen): JSON ingest, health and metrics, then OTLP/HTTP, then the project-scoped API. */
export function createApp(deps: ApiDeps): Koa {
  const app = new Koa();
  app.proxy = true;
  // Koa would log every thrown error to stderr; the error middleware logs what matters.
  app.silent = true;

  // CSP, nosniff, no framing, a referrer policy on every answer, errors and dashboard pages included.
  app.use(securityHeaders());
  app.use(errorMiddleware(deps.logger));
  // JSON ingest on its own short router (api/ingest-routes.ts), before anything else looks at it.
  app.use(ingestRouter(deps).routes());
  // The OpenAPI document and its reference page (public; /api-reference is taken before the dashboard).
  app.use(openApiRouter({ version: deps.config.version }).routes());
  // The MCP server (docs/mcp.md): its tools call this app's own routes, in process, as the caller (before the dashboard, which takes other GETs).
  let handle: ReturnType<Koa['callback']> | undefined;
  app.use(mcpRouter(deps, (req, res) => void (handle ??= app.callback())(req, res)).routes());
  // The dashboard takes GET/HEAD outside /api, /v1 and /metrics before any API middleware runs.
  if (deps.ui) app.use(uiMiddleware(deps.ui));
  // Open routes: health, metrics (their own credentials), the dashboard's sign-in and session.
  for (const open of [healthRouter(deps), metricsRouter(deps), authRouter(deps)]) app.use(open.routes());
  if (deps.otlpRouter) app.use(deps.otlpRouter.routes()).use(deps.otlpRouter.allowedMethods());

  const api = new Router();
  api.use(authenticate(deps.auth, deps.limiter, deps.sessions, deps.projectStates));
  // No control character in a path parameter or a query value: 400 (core/model/ids.ts).
  api.use(requestText());
  api.use(jsonBody(deps.config.maxBodyBytes, { yamlPaths: SUITE_BODY_PATHS }));
  // The patterns a request brings are compiled to check them, within one budget per request.
  api.use(patternCheckBudget());
  // Idempotency-Key on the creating POSTs (runs, eval runs, scores, feedback): a retry gets the first answer.
  api.use(idempotency(deps.metadata.idempotency, deps.logger));
  const runService = createRunService(deps);
  const routers = [
    projectsRouter(deps),
    membersRouter(deps),
    tracesRouter(deps),
    traceSessionsRouter(deps),
    scoresRouter(deps),
    spansRouter(deps),
    agentsRouter(deps),
    scorersRouter(deps),
    suitesRouter(deps),
    suiteCasesRouter(deps),
    promptsRouter(deps),
    evalRunsRouter(deps, runService),
    runsRouter(deps, runService),
    feedbackRouter(deps),
    queuesRouter(deps),
    alertsRouter(deps),
    onlineRulesRouter(deps),
    analyticsRouter(deps),
    adminCostsRouter(deps),
    adminProjectsRouter(deps),
    adminBackupRouter(deps),
    auditRouter(deps),
    deletionsRouter(deps),
    judgeCalibrationRouter(deps),
    failuresRouter(deps),
    exportsRouter(deps),
  ];
  for (const router of routers) api.use(router.routes(), router.allowedMethods());
  app.use(api.routes()).use(api.allowedMethods());
  app.use((ctx) => {
    if (ctx.status === 404 && ctx.body === undefined) throw new NotFoundError(`No route for ${ctx.method} ${ctx.path}`, 'ROUTE_NOT_FOUND');
  });
  return app;
}
