/**
 * The SDK's typed client for a browser (the dashboard, ui/): every endpoint of
 * {@link AgentEvalApi} over a {@link Requester} the caller supplies (the dashboard's carries the
 * session cookie and CSRF token). Nothing here, nor anything it imports, needs Node: the model
 * comes in as types only, and no `node:` module, environment variable or file is read. The Node
 * client (`AgentEvalClient`, with the SDK's transport) is in client.ts.
 */

export { AgentEvalApi } from './endpoints.js';
export type {
  Requester,
  HealthView,
  RunStatusView,
  RunList,
  RunListParams,
  TraceListParams,
  SessionListParams,
  SuiteInput,
  LocalResultsAnswer,
  Page,
  Query,
} from './api-types.js';
export type { RequestOptions } from './http.js';
