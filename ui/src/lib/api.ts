import { writable, get } from 'svelte/store';
import { AgentEvalApi, type Requester, type RequestOptions } from '../../../sdk/browser.js';
import type { AuthState, Project, ProjectRole, SessionView } from './types.js';
import { takeEarlyAnswer, takeEarlySession } from './early-session.js';

/**
 * Who the dashboard is. Signed in, the browser holds an HttpOnly session cookie the page never
 * sees (POST /api/auth/key or the OpenID Connect sign-in set it): every call is same-origin, so
 * the cookie goes with it, and a state-changing one carries the session's CSRF token. Nothing
 * secret is kept in localStorage or sessionStorage; only the chosen project's id is. With
 * `AUTH_MODE=none` there is no session, only the project header (docs/security.md).
 */
export interface Session {
  mode: 'session' | 'none';
  /** The signed-in person (OpenID Connect); null for a key's session and with AUTH_MODE=none. */
  user: SessionView['user'];
  /** The API key the session was opened with (its name and prefix, never its secret). */
  key: SessionView['key'];
  /** Sent as X-CSRF-Token with every state-changing call. */
  csrfToken: string | null;
  projectId: string | null;
}

/** The chosen project, remembered across visits (an id, not a secret). */
const PROJECT_KEY = 'agent-eval.project';
/** Where an older dashboard kept the API key itself: removed at every start. */
const LEGACY_SESSION_KEY = 'agent-eval.session';

export const session = writable<Session | null>(null);
/** The projects the session reaches, with its role in each (a role is absent with AUTH_MODE=none). */
export const projects = writable<ProjectRole[]>([]);
/** How one signs in here (GET /api/auth/session): an API key, and OpenID Connect when configured. */
export const signInOptions = writable<AuthState['sign_in'] | null>(null);
/** The OTLP receivers' ports of this service (GET /api/auth/session's `ingest`): what the empty states tell exporters. */
export const ingestPorts = writable<AuthState['ingest'] | null>(null);

/** The remembered project id (and the key an older dashboard stored there is wiped). */
export function rememberedProject(storage: Pick<Storage, 'getItem' | 'removeItem'> = localStorage): string | null {
  try {
    storage.removeItem(LEGACY_SESSION_KEY);
    return storage.getItem(PROJECT_KEY);
  } catch {
    return null;
  }
}

/** Sets the session (null: signed out) and remembers its project. */
export function saveSession(s: Session | null): void {
  session.set(s);
  try {
    if (s?.projectId) localStorage.setItem(PROJECT_KEY, s.projectId);
  } catch {
    // Storage may be off (a private window): the project is then chosen again next time.
  }
}

/** An API answer other than 2xx, with the sentence to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    /** The body's `details`: for a 422, one `{field, message}` per problem (forms show them by field). */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/**
 * The words for a failure to show: `special[status]` for an {@link ApiError} with that status
 * (a 403 says which permission is missing), else the error's own message.
 */
export function failureWords(err: unknown, special: Partial<Record<number, string>> = {}): string {
  const said = err instanceof ApiError ? special[err.status] : undefined;
  return said ?? (err instanceof Error ? err.message : String(err));
}

/** The `{field, message}` problems of a 422 (or none), for forms that show errors next to their fields. */
export function fieldIssues(err: unknown): Array<{ field: string; message: string }> {
  if (!(err instanceof ApiError) || !Array.isArray(err.details)) return [];
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return (err.details as Array<{ field?: unknown; message?: unknown }>).map((d) => ({ field: text(d.field), message: text(d.message) }));
}

interface ErrorBody {
  error?: string;
  message?: string;
  details?: unknown;
  code?: string;
}

/** The words for a failed call: the API's own message when it gave one. */
export function describeFailure(status: number, body: ErrorBody | null): string {
  const detail =
    typeof body?.details === 'string'
      ? body.details
      : Array.isArray(body?.details)
        ? (body.details as Array<{ field?: string; message?: string }>).map((d) => `${d.field ?? ''}: ${d.message ?? ''}`).join('; ')
        : '';
  const what = body?.message && body.message !== body.error ? `${body.error ?? ''} ${body.message}`.trim() : (body?.error ?? '');
  if (status === 401) return `The API refused the credentials${detail ? ` (${detail})` : what ? ` (${what})` : ''}. Sign in again.`;
  if (status === 403) return `You may not do that here${detail ? `: ${detail}` : what ? `: ${what}` : ''}.`;
  if (status === 429) return 'Too many requests for this project right now (rate limit); try again in a minute.';
  if (status === 503) return `The service is unavailable${what ? `: ${what}` : ''}. It may be starting or a store may be down; try again shortly.`;
  return `${what || `Request failed with HTTP ${status}`}${detail ? ` (${detail})` : ''}`;
}

/** Methods that change nothing: every other one carries the CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** Headers for a call: the project, and for a state-changing call with a session its CSRF token. */
export function authHeaders(s: Session | null, method = 'GET'): Record<string, string> {
  const h: Record<string, string> = {};
  if (s?.projectId) h['x-project-id'] = s.projectId;
  if (s?.csrfToken && !SAFE_METHODS.has(method.toUpperCase())) h['x-csrf-token'] = s.csrfToken;
  return h;
}

/** Who a call is made as, and what may abort it. */
export interface CallOptions {
  signal?: AbortSignal;
  /** The session to call as (null: none, e.g. the sign-in itself); the dashboard's current one when absent. */
  session?: Session | null;
}

/** A path with its query (values undefined or null left out), as the SDK's transport builds it. */
function withQuery(path: string, query: RequestOptions['query']): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) q.set(k, String(v));
  const text = q.toString();
  return text ? `${path}${path.includes('?') ? '&' : '?'}${text}` : path;
}

/**
 * One call on the API as the signed-in session, same-origin (the session cookie goes with it),
 * the project's header and, on a state-changing call, the CSRF token. Answers the response once
 * it is 2xx (its body not read yet); a failure throws an {@link ApiError} with words to show
 * (401: sign in again); an abort throws the AbortError.
 */
async function respond(method: string, path: string, opts: RequestOptions & CallOptions): Promise<Response> {
  const s = opts.session === undefined ? get(session) : opts.session;
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers, ...authHeaders(s, method) };
  if (opts.json !== undefined) headers['content-type'] = 'application/json';
  // A body that is not JSON, e.g. a suite as YAML (Content-Type application/yaml).
  else if (opts.text) headers['content-type'] = opts.text.contentType;
  const body = opts.json === undefined ? opts.text?.body : JSON.stringify(opts.json);
  const url = withQuery(path, opts.query);
  let res: Response;
  try {
    // A list opened bare was asked for while the scripts loaded (app.html): that answer, once.
    const early = method === 'GET' && body === undefined ? await takeEarlyAnswer(url, headers['x-project-id']) : null;
    if (early) opts.signal?.throwIfAborted();
    res = early ?? (await fetch(url, { method, headers, credentials: 'same-origin', signal: opts.signal, body }));
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'The service did not answer: is it running? Check the network and try again.');
  }
  if (!res.ok) {
    const b = parseJson(await res.text());
    const error = b && typeof b === 'object' ? (b as ErrorBody) : null;
    throw new ApiError(res.status, describeFailure(res.status, error), error?.code, error?.details);
  }
  return res;
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** {@link respond}'s answer as JSON (a 204: undefined). */
async function send<T>(method: string, path: string, opts: RequestOptions & CallOptions): Promise<T> {
  inFlight++;
  try {
    const res = await respond(method, path, opts);
    if (res.status === 204) return undefined as T;
    return parseJson(await res.text()) as T;
  } finally {
    inFlight--;
    if (inFlight === 0) setTimeout(wakeIfSettled, 0);
  }
}

/** Calls of the typed client not answered yet, and who waits for none to be. */
let inFlight = 0;
let settleWaiters: Array<() => void> = [];

/** Wakes the waiters when no call is in flight: checked a task after the last one ended, so a call that answer starts (e.g. a request that needs the one before) counts. */
function wakeIfSettled(): void {
  if (inFlight > 0) return;
  const woken = settleWaiters;
  settleWaiters = [];
  for (const wake of woken) wake();
}

/**
 * Resolves once no call of the typed client is in flight (looked at a task from now), or after
 * `atMostMs` whatever is: a page starts what is off screen once what is on screen has its data,
 * so the two do not share the service (the analytics page, issue 32).
 */
export function whenCallsSettle(atMostMs: number): Promise<void> {
  return new Promise((resolve) => {
    settleWaiters.push(resolve);
    setTimeout(wakeIfSettled, 0);
    setTimeout(resolve, atMostMs);
  });
}

/**
 * A GET whose answer is text rather than JSON (a streamed export: JSON Lines or CSV, which the
 * typed client leaves to Node), with its headers; failures as {@link send}'s.
 */
export async function getText(path: string, query: RequestOptions['query'], call: CallOptions = {}): Promise<{ text: string; headers: Headers }> {
  const res = await respond('GET', path, { query, headers: { accept: 'application/x-ndjson, text/csv' }, ...call });
  return { text: await res.text(), headers: res.headers };
}

/** The dashboard's way of carrying the SDK client's calls: {@link send}, no retries, no time-out. */
export function requester(call: CallOptions = {}): Requester {
  return {
    get project() {
      return (call.session === undefined ? get(session) : call.session)?.projectId ?? undefined;
    },
    request: <T>(method: string, path: string, opts: RequestOptions = {}) =>
      send<T>(method, path, { ...opts, signal: opts.signal ?? call.signal, session: call.session }),
  };
}

/**
 * The SDK's typed client (sdk/browser.ts: every endpoint typed from the API's own model) over
 * the dashboard's session: every call of the UI goes through it.
 */
export function client(call: CallOptions = {}): AgentEvalApi {
  return new AgentEvalApi(requester(call));
}

/**
 * A query the page built (its filters, kept in the URL the same way) as the parameters of the
 * typed client's method: the names are the API's, checked by the page's own tests.
 */
export function queryOf<P>(q: URLSearchParams): P {
  return Object.fromEntries(q) as P;
}

/** The project to use from a list: the remembered one if still reachable, else the default, else the first. */
export function pickProject(list: readonly Project[], remembered: string | null): string | null {
  if (remembered && list.some((p) => p.id === remembered)) return remembered;
  return (list.find((p) => p.is_default) ?? list[0])?.id ?? null;
}

/** A project to name while listing projects with AUTH_MODE=none, before any is known. */
const PROBE_PROJECT = 'default';

/** The session the dashboard keeps for a server session, on the remembered project when it still reaches it. */
function fromView(view: SessionView, remembered: string | null): { session: Session; projects: ProjectRole[] } {
  return {
    session: { mode: 'session', user: view.user, key: view.key, csrfToken: view.csrf_token, projectId: pickProject(view.projects, remembered) },
    projects: view.projects,
  };
}

/**
 * Exchanges an API key for a session (POST /api/auth/key): the server checks it, sets the
 * HttpOnly cookie and keeps only which key it was. The key is not kept here either. Throws
 * ApiError (401 for a wrong or revoked key).
 */
export async function signInWithKey(key: string, remembered: string | null = null): Promise<{ session: Session; projects: ProjectRole[] }> {
  const view = await client({ session: null }).auth.signInWithKey(key);
  return fromView(view, remembered);
}

/** Ends the session on the server (its cookie stops working everywhere) and here. */
export async function signOut(): Promise<void> {
  const s = get(session);
  try {
    if (s?.mode === 'session') await client({ session: s }).auth.signOut();
  } finally {
    session.set(null);
    projects.set([]);
  }
}

/** How this service signs people in, read without credentials (GET /api/auth/session). */
export async function authState(): Promise<AuthState> {
  return (await takeEarlySession<AuthState>()) ?? client({ session: null }).auth.state();
}

/**
 * The session to start with: the server's (the browser's cookie), or, with AUTH_MODE=none, the
 * anonymous one and every project (naming any project lists them all). Null means: sign in.
 */
export async function resumeSession(state: AuthState, remembered: string | null): Promise<{ session: Session; projects: ProjectRole[] } | null> {
  if (state.auth_mode === 'none') {
    const probe: Session = { mode: 'none', user: null, key: null, csrfToken: null, projectId: remembered ?? PROBE_PROJECT };
    const list = (await client({ session: probe }).projects.list()).projects ?? [];
    return { session: { ...probe, projectId: pickProject(list, remembered) }, projects: list };
  }
  return state.session ? fromView(state.session, remembered) : null;
}
