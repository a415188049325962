/**
 * The SDK's errors (SPEC "Client-side and CLI errors"). Every one is an {@link AgentEvalError}:
 * the SPEC's "cloud sync error", with an optional `statusCode` and `cause`.
 */

/** Base class of every error the SDK throws on purpose. */
export class AgentEvalError extends Error {
  /** The HTTP status when the error came from an answer of the service. */
  readonly statusCode?: number;

  constructor(message: string, options: { statusCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options.statusCode !== undefined) this.statusCode = options.statusCode;
  }
}

/** The body of an error answer, in any of the service's shapes (docs/api.md, "Errors"). */
export interface ErrorBody {
  error?: string;
  message?: string;
  code?: string;
  status?: number;
  details?: unknown;
  hint?: string;
  retry_after?: number;
}

/** What a non-OK answer says, shortest first: 401 and 403 say what to do about them (SPEC "Cloud sync"). */
function describe(status: number, body: ErrorBody | undefined, hasKey: boolean): string {
  const details = typeof body?.details === 'string' ? body.details : undefined;
  if (status === 401) {
    const base = hasKey ? 'Invalid API key' : 'API key required (set apiKey or AGENT_EVAL_API_KEY)';
    return details && details !== 'Valid authentication required' ? `${base}: ${details}` : base;
  }
  if (status === 403) return `Insufficient workspace permissions${details ? `: ${details}` : ''}`;
  const text = body?.error ?? body?.message ?? (status === 404 ? 'Not found' : 'Request failed');
  // 422 names every field at fault; 500 and 503 carry the cause in `details`.
  if (Array.isArray(body?.details) && body.details.length) {
    const fields = (body.details as Array<{ field?: string; message?: string }>).slice(0, 10).map((d) => `${d.field ?? '(body)'}: ${d.message ?? ''}`);
    return `${text} (${fields.join('; ')})`;
  }
  return text;
}

/**
 * A non-OK answer of the service: `Service API error: {status} {message}`. A 401 says the key is
 * invalid, a 403 that the key lacks a permission of the workspace (SPEC "Authentication" 8).
 */
export class ServiceApiError extends AgentEvalError {
  /** The HTTP status (also `statusCode`). */
  readonly status: number;
  declare readonly statusCode: number;
  /** The service's error code (`RUN_NOT_FOUND`, `VALIDATION_ERROR`, `UNAUTHORIZED`...), when it gave one. */
  readonly code: string | undefined;
  /** The parsed error body (or its text when it was not JSON). */
  readonly body: unknown;
  /** `METHOD path` of the request. */
  readonly request: string;
  /** Seconds the service asked to wait (429, 503), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: { status: number; body: unknown; request: string; hasKey: boolean; retryAfterSeconds?: number; cause?: unknown }) {
    const body = init.body && typeof init.body === 'object' ? (init.body as ErrorBody) : undefined;
    super(`Service API error: ${init.status} ${describe(init.status, body, init.hasKey)}`, { statusCode: init.status, cause: init.cause });
    this.status = init.status;
    this.code = body?.code;
    this.body = init.body;
    this.request = init.request;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** The service could not be reached (refused connection, DNS, time-out); `cause` is the network error. */
export class ServiceUnreachableError extends AgentEvalError {
  constructor(url: string, cause: unknown) {
    super(`Service unreachable: ${url} (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
  }
}

/** A run ended without completing (`failed` or `cancelled`), or a local run could not be executed: `Evaluation run failed: {message}`. */
export class EvaluationRunError extends AgentEvalError {
  /** The run, when one was created. */
  readonly runId: string | undefined;
  /** What the run produced, when it ran to its end (a run whose cases ended with errors). */
  result?: unknown;

  constructor(message: string, options: { runId?: string; statusCode?: number; cause?: unknown } = {}) {
    super(`Evaluation run failed: ${message}`, options);
    this.runId = options.runId;
  }
}

/** An experiment definition breaks one of the SPEC's rules; `problems` lists each. */
export class ExperimentValidationError extends AgentEvalError {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(problems.join('; '));
    this.problems = problems;
  }
}

/** The message of anything thrown. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
