import type { RouteSpec } from './route-spec.js';
import { OPEN_ROUTES } from './routes/open.js';
import { INGEST_ROUTES, TRACES_ROUTES } from './routes/traces.js';
import { EVAL_RESOURCES_ROUTES, PROMPTS_ROUTES } from './routes/evals.js';
import { DATASET_ROUTES } from './routes/datasets.js';
import { RUNS_ROUTES } from './routes/runs.js';
import { FEEDBACK_ROUTES } from './routes/feedback.js';
import { MONITORING_ROUTES } from './routes/monitoring.js';
import { ADMIN_ROUTES } from './routes/admin.js';
import { EXPORT_ROUTES } from './routes/exports.js';
import { MCP_ROUTES } from './routes/mcp.js';

/**
 * Every route of the service's port (docs/architecture.md, "How a route declares itself"): the
 * one list the OpenAPI document is built from (api/openapi/document.ts). Each area declares its
 * routes in a module of api/openapi/routes/ with `defineRoutes`; query and body schemas are the
 * objects the routes validate with; every JSON answer is a schema of core/model/answers*.ts (or,
 * for the failure analysis and MCP's JSON-RPC, of its own module) (docs/api.md, "OpenAPI").
 * test/unit/openapi/document.test.ts checks this list against the routers both ways, and the
 * in-process API tests check every answer against the document.
 */
export const API_ROUTES: readonly RouteSpec[] = [
  ...INGEST_ROUTES,
  ...OPEN_ROUTES,
  ...TRACES_ROUTES,
  ...EVAL_RESOURCES_ROUTES,
  ...DATASET_ROUTES,
  ...PROMPTS_ROUTES,
  ...RUNS_ROUTES,
  ...FEEDBACK_ROUTES,
  ...MONITORING_ROUTES,
  ...ADMIN_ROUTES,
  ...EXPORT_ROUTES,
  ...MCP_ROUTES,
];
