import { AgentEvalClient } from '../sdk/client.js';
import { ServiceApiError, ServiceUnreachableError } from '../sdk/errors.js';
import { resolveCredentials } from './config.js';
import { CliError, colorsFor, println, type CliIo } from './io.js';

/**
 * How commands reach the service: the SDK's client (the one HTTP client of the package), built
 * from the resolved credentials, and how its failures read on a terminal.
 */

/** A client for the configured service; `Not authenticated` when there are no credentials. */
export function connect(io: CliIo): AgentEvalClient {
  const { url, apiKey, project } = resolveCredentials(io.env);
  return new AgentEvalClient({ url, apiKey, project });
}

/** Whether `err` is the service's 404 (the run, suite... does not exist or is another project's). */
export function isNotFound(err: unknown): boolean {
  return err instanceof ServiceApiError && err.status === 404;
}

/** `Run not found: {run_id}` (SPEC) for the service's 404 of a run. */
export async function orRunNotFound<T>(runId: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (isNotFound(err)) throw new CliError(`Run not found: ${runId}`, 'agent-eval runs list shows the runs of the project.');
    throw err;
  }
}

/** What the user reads for a failure no command handled itself. */
function explain(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof ServiceApiError && err.status === 401)
    return new CliError('Not authenticated', `${err.message}. Run agent-eval login, or set AGENT_EVAL_API_KEY.`);
  if (err instanceof ServiceUnreachableError)
    return new CliError(err.message, 'Is the service running? Start it with agent-eval serve, or point AGENT_EVAL_URL at it.');
  return new CliError(err instanceof Error ? err.message : String(err));
}

/**
 * Wraps a command's action: a failure becomes its message in red on stderr (a hint under it)
 * and exit code 1; an action that returns keeps the exit code it set (1 for failed cases). The
 * code is set, not forced with process.exit, so output written to a pipe is flushed first.
 */
export function action<A extends unknown[]>(io: CliIo, fn: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      const c = colorsFor(io.stderr, io.env);
      const failure = explain(err);
      println(io.stderr, c.red(failure.message));
      if (failure.detail) println(io.stderr, c.dim(failure.detail));
      process.exitCode = 1;
    }
  };
}
