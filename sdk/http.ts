import { ServiceApiError, ServiceUnreachableError } from './errors.js';

/** How the client reaches the service. */
export interface ClientOptions {
  /** The service's base URL, e.g. `http://localhost:3000` (default: `AGENT_EVAL_URL`). */
  url?: string;
  /** An API key `ae_<env>_...` sent as `x-api-key` (default: `AGENT_EVAL_API_KEY`). */
  apiKey?: string;
  /** The project (workspace) sent as `x-project-id`; a key's own project when absent (default: `AGENT_EVAL_PROJECT`). */
  project?: string;
  /** A fetch implementation (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
  /** Time-out of one HTTP attempt, in ms (default 30,000). */
  timeoutMs?: number;
  /** Attempts after the first for answers worth repeating (429, 502, 503, 504; network errors of idempotent calls). Default 3. */
  retries?: number;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  /** A JSON body; or `text` with its content type. */
  json?: unknown;
  text?: { body: string; contentType: string };
  /**
   * Whether repeating the request after a lost answer is harmless. GET, PUT and DELETE are;
   * a POST is only when the endpoint says so (results by case index, comparisons...).
   */
  idempotent?: boolean;
  /** Headers of this request only (e.g. `Idempotency-Key`). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Answer the body as text, as sent (a file: an export), rather than parsed as JSON. */
  asText?: boolean;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
  });

/** Seconds of a `Retry-After` header (delta-seconds or an HTTP date). */
function retryAfter(res: Response): number | undefined {
  const value = res.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * One HTTP path to the service: credentials and project headers, a time-out per attempt,
 * retries with `Retry-After` where the service asks for them (OTel exporters' rule: 429, 502,
 * 503, 504), and the SPEC's errors for everything else.
 */
export class Transport {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly project: string | undefined;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly headers: Record<string, string>;

  constructor(opts: ClientOptions & { url: string }) {
    this.baseUrl = opts.url.replace(/\/+$/, '');
    this.apiKey = opts.apiKey || undefined;
    this.project = opts.project || undefined;
    this.fetchFn = opts.fetch ?? ((...args) => fetch(...args));
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.retries = opts.retries ?? 3;
    this.headers = opts.headers ?? {};
  }

  /** Headers every call carries: the key and the project. */
  authHeaders(): Record<string, string> {
    return { ...this.headers, ...(this.apiKey ? { 'x-api-key': this.apiKey } : {}), ...(this.project ? { 'x-project-id': this.project } : {}) };
  }

  url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    return url.toString();
  }

  /** Sends the request and returns the parsed JSON answer (undefined for 204). */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const url = this.url(path, opts.query);
    const headers: Record<string, string> = { accept: 'application/json', ...this.authHeaders(), ...opts.headers };
    let body: string | undefined;
    if (opts.text) {
      headers['content-type'] = opts.text.contentType;
      body = opts.text.body;
    } else if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    const idempotent = opts.idempotent ?? method !== 'POST';
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(this.timeoutMs)]) : AbortSignal.timeout(this.timeoutMs);
        res = await this.fetchFn(url, { method, headers, body, signal });
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        // A lost answer may mean the request was done: repeat it only when that is harmless.
        if (idempotent && attempt < this.retries) {
          await sleep(backoff(attempt), opts.signal);
          continue;
        }
        throw new ServiceUnreachableError(`${method} ${this.baseUrl}${path}`, err);
      }
      if (res.ok) {
        const parsed = res.status === 204 ? undefined : opts.asText ? await res.text() : await readBody(res);
        return parsed as T;
      }
      const wait = retryAfter(res);
      // 429 and 503 mean nothing was done (docs/api.md), so even a POST may be sent again; a 409
      // with Retry-After to a request with an Idempotency-Key: its first sending still runs.
      const keyInUse = res.status === 409 && wait !== undefined && 'idempotency-key' in headers;
      if ((keyInUse || (RETRY_STATUSES.has(res.status) && (idempotent || res.status === 429 || res.status === 503))) && attempt < this.retries) {
        await res.body?.cancel().catch(() => undefined);
        await sleep(Math.min(60_000, wait !== undefined ? wait * 1000 : backoff(attempt)), opts.signal);
        continue;
      }
      throw new ServiceApiError({
        status: res.status,
        body: await readBody(res).catch(() => undefined),
        request: `${method} ${path}`,
        hasKey: Boolean(this.apiKey),
        retryAfterSeconds: wait,
      });
    }
  }
}

/** 0.5 s, 1 s, 2 s... at most 10 s, with jitter. */
function backoff(attempt: number): number {
  return Math.min(10_000, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
}
