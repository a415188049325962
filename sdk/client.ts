import { parseSuiteYaml } from '../core/model/suite-yaml.js';
import type { SuiteInput } from './api-types.js';
import { AgentEvalApi } from './endpoints.js';
import { readEnvironment, DEFAULT_URL } from './env.js';
import { Transport, type ClientOptions } from './http.js';
import { exportEndpoints } from './endpoints-exports.js';
import { exportStreams } from './export-stream.js';
import { EndpointCalls } from './endpoint-calls.js';

/**
 * A typed client for every endpoint of the service (docs/api.md, evals.md, suites.md,
 * prompts.md, feedback.md, alerts.md, security.md). Request bodies are the input types of the
 * zod schemas the API validates them with, answers the model types it builds them from: the
 * client and the service compile against the same definitions.
 *
 * Every method resolves with the endpoint's JSON answer as documented, and rejects with a
 * {@link ServiceApiError} (`Service API error: {status} {message}`) for a non-OK answer or a
 * `ServiceUnreachableError` when the service cannot be reached.
 *
 * The endpoints themselves are {@link AgentEvalApi} (endpoints.ts, browser-safe, also the
 * dashboard's client); this adds the Node side: the environment's address and key, and the
 * transport's retries and time-outs.
 */

export type { ClientOptions } from './http.js';
export type { HealthView, RunStatusView, SuiteInput, TraceListParams, SessionListParams, RunListParams, RunList, LocalResultsAnswer } from './api-types.js';

export class AgentEvalClient extends AgentEvalApi {
  /** The HTTP path every call takes; also used by the tracer and evaluate() for their headers. */
  readonly transport: Transport;

  constructor(options: ClientOptions = {}) {
    const env = readEnvironment();
    const transport = new Transport({
      ...options,
      url: options.url ?? env.url ?? DEFAULT_URL,
      apiKey: options.apiKey ?? env.apiKey,
      project: options.project ?? env.project,
    });
    super(transport);
    this.transport = transport;
  }

  /** Bulk export: the jobs, plus streamed exports and job files (bytes as they arrive: sdk/export-stream.ts). */
  override readonly exports = { ...exportEndpoints(new EndpointCalls(() => this.transport)), ...exportStreams(() => this.transport) };

  /** The base URL the client talks to. */
  get url(): string {
    return this.transport.baseUrl;
  }

  /** A suite's name, from its definition or its YAML (parsed by the service's parser). */
  protected override suiteName(suite: SuiteInput): string {
    return super.suiteName(typeof suite === 'string' ? (parseSuiteYaml(suite) as SuiteInput) : suite);
  }
}
