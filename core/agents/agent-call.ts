import { AgentReplySchema, MAX_AGENT_REPLY_BYTES, type AgentReply } from '../model/agent-reply.js';
import { errorMessage } from '../errors.js';
import { EgressRefusedError, isRedirect, type EgressFetch } from '../egress/fetch.js';

/** Why an agent call failed, and whether trying again may help. */
export class AgentCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'AgentCallError';
  }
}

export interface AgentTarget {
  endpoint: string;
  headers: Record<string, string>;
}

export interface AgentCallResult {
  reply: AgentReply;
  latencyMs: number;
  startedAt: number;
  endedAt: number;
}

/** Reads at most `limit` bytes of a response body; more is an error. */
async function readBounded(res: Response, limit: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new AgentCallError(`agent answer exceeds ${limit} bytes`, false);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface AgentCallOptions {
  timeoutMs: number;
  traceparent: string;
  signal?: AbortSignal;
  /**
   * How the call is sent: the service's egress policy (core/egress) in the worker; the CLI's local
   * runs, on the user's own machine, pass the global fetch. Redirects are not followed either way.
   */
  fetch: EgressFetch;
}

/**
 * `POST {endpoint}` with the case as JSON and the case trace's `traceparent`, so an agent
 * instrumented with OpenTelemetry joins the trace. A non-2xx answer, a network error or a
 * time-out is retryable (the activity's policy retries); a 2xx answer that is not the agent
 * reply shape is not (the same agent would answer the same), nor is an endpoint the egress
 * policy refuses (nothing is sent to it) or a redirect (not followed; its body is not shown).
 */
export async function callAgent(target: AgentTarget, body: unknown, opts: AgentCallOptions): Promise<AgentCallResult> {
  const startedAt = Date.now();
  const signals = [AbortSignal.timeout(opts.timeoutMs), ...(opts.signal ? [opts.signal] : [])];
  let res: Response;
  try {
    res = await opts.fetch(target.endpoint, {
      method: 'POST',
      headers: { ...target.headers, 'content-type': 'application/json', accept: 'application/json', traceparent: opts.traceparent },
      body: JSON.stringify(body),
      signal: AbortSignal.any(signals),
      redirect: 'manual',
    });
  } catch (err) {
    if (err instanceof EgressRefusedError) throw new AgentCallError(`agent endpoint refused by the egress policy: ${err.reason}`, false);
    const timedOut = (err as { name?: string }).name === 'TimeoutError';
    throw new AgentCallError(
      timedOut ? `agent did not answer within ${opts.timeoutMs} ms` : `agent unreachable: ${errorMessage((err as { cause?: unknown }).cause ?? err)}`,
      true,
    );
  }
  if (isRedirect(res.status)) {
    await res.body?.cancel().catch(() => undefined);
    throw new AgentCallError(`agent answered ${res.status}, a redirect (not followed)`, false);
  }
  let text: string;
  try {
    text = await readBounded(res, MAX_AGENT_REPLY_BYTES);
  } catch (err) {
    // A failing agent's error page may be large: its status decides, not its size.
    if (!res.ok) throw new AgentCallError(`agent answered ${res.status}`, true);
    if (err instanceof AgentCallError) throw err;
    throw new AgentCallError(`agent answer could not be read: ${errorMessage(err)}`, true);
  }
  const endedAt = Date.now();
  if (!res.ok) throw new AgentCallError(`agent answered ${res.status}: ${text.slice(0, 500)}`, true);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AgentCallError(`agent answer is not JSON: ${text.slice(0, 200)}`, false);
  }
  const parsed = AgentReplySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentCallError(`agent answer is not valid: ${issue.path.join('.') || '(body)'} ${issue.message}`, false);
  }
  return { reply: parsed.data, latencyMs: endedAt - startedAt, startedAt, endedAt };
}
