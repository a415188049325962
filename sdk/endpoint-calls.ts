import { AgentEvalError } from './errors.js';
import type { Query, Requester } from './api-types.js';
import type { RequestOptions } from './http.js';

export const enc = encodeURIComponent;

/**
 * The shapes of call every endpoint group of {@link AgentEvalApi} is built from, over the
 * client's {@link Requester} (read when a call is made: the client assigns it after its groups).
 */
export class EndpointCalls {
  constructor(private readonly requester: () => Requester) {}

  request<T>(method: string, path: string, opts?: RequestOptions): Promise<T> {
    return this.requester().request<T>(method, path, opts);
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  /**
   * A creating POST, with an `Idempotency-Key` when `key` is given: the request is then safe to
   * send again (a lost answer, 503, or 409 while the first sending still runs), and every sending
   * gets the first answer (docs/api.md, "Retries: Idempotency-Key").
   */
  create<T>(path: string, json: unknown, key: string | undefined, alreadyIdempotent = false): Promise<T> {
    return this.request<T>('POST', path, {
      json,
      idempotent: key !== undefined || alreadyIdempotent,
      headers: key !== undefined ? { 'idempotency-key': key } : undefined,
    });
  }

  post<T>(path: string, json?: unknown, opts: Omit<RequestOptions, 'json'> = {}): Promise<T> {
    return this.request<T>('POST', path, { ...opts, json: json ?? {} });
  }

  put<T>(path: string, json: unknown): Promise<T> {
    return this.request<T>('PUT', path, { json });
  }

  del(path: string, query?: Query): Promise<void> {
    return this.request<void>('DELETE', path, { query });
  }

  /**
   * The project of project-scoped admin routes (keys, rate limits): the client's `project`, else
   * the one project the key reaches.
   */
  async projectId(explicit?: string): Promise<string> {
    const id = explicit ?? this.requester().project;
    if (id) return id;
    const { projects } = await this.get<{ projects: Array<{ id: string }> }>('/api/projects');
    if (projects.length === 1) return projects[0].id;
    throw new AgentEvalError(`Name the project: these credentials reach ${projects.length} projects (set project or AGENT_EVAL_PROJECT)`);
  }
}
