import type { IncomingHttpHeaders } from 'node:http';
import { inject, type DispatchFunc } from 'light-my-request';
import { AgentEvalApi } from '../../sdk/endpoints.js';
import { Transport } from '../../sdk/http.js';

/** The caller's credentials a tool's requests carry: its key or token, and the project it named. */
const FORWARDED = ['authorization', 'x-api-key', 'x-project-id', 'x-forwarded-for'] as const;

/**
 * The API's own routes as the typed client calls them, answered in this process (no socket): a
 * tool's request goes through the same authentication, permission check, rate limit, validation,
 * project isolation and error mapping as the same request over HTTP, with the MCP caller's
 * credentials. The base URL is a placeholder; nothing leaves the process.
 */
export function inProcessClient(dispatch: DispatchFunc, headers: IncomingHttpHeaders, peer: string | undefined): AgentEvalApi {
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = headers[name];
    if (typeof value === 'string') forwarded[name] = value;
  }
  const fetchInProcess: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const answer = await inject(dispatch, {
      method: (init?.method ?? 'GET') as 'GET',
      url: url.pathname + url.search,
      headers: { ...(init?.headers as Record<string, string>), ...forwarded },
      payload: typeof init?.body === 'string' ? init.body : undefined,
      // The caller's address, for what the key allows and what the audit log records.
      remoteAddress: peer ?? '127.0.0.1',
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    const empty = answer.statusCode === 204 || answer.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(answer.rawPayload), { status: answer.statusCode, headers: out });
  };
  // No retries: a refusal (429, 503) is the model's to read, not this process's to wait out.
  return new AgentEvalApi(new Transport({ url: 'http://in-process', fetch: fetchInProcess, retries: 0, timeoutMs: 120_000 }));
}
