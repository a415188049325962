import { writable, get } from 'svelte/store';
import type { AuthState, Project, ProjectRole, SessionView } from './types.js';

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
  const detail = typeof body?.details === 'string' ? body.details : Array.isArray(body?.details) ? (body.details as Array<{ field?: string; message?: string }>).map((d) => `${d.field ?? ''}: ${d.message ?? ''}`).join('; ') : '';
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

/** GET (or another method) on the API as the signed-in session; throws ApiError with words to show. */
export async function api<T>(
  path: string,
  init: { signal?: AbortSignal; method?: string; json?: unknown; session?: Session | null; text?: { body: string; contentType: string } } = {},
): Promise<T> {
  const s = init.session === undefined ? get(session) : init.session;
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders(s, method) };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  // A body that is not JSON, e.g. a suite as YAML (Content-Type application/yaml).
  else if (init.text) headers['content-type'] = init.text.contentType;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', signal: init.signal, body: init.json === undefined ? init.text?.body : JSON.stringify(init.json) });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'The service did not answer: is it running? Check the network and try again.');
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const b = body && typeof body === 'object' ? (body as ErrorBody) : null;
    throw new ApiError(res.status, describeFailure(res.status, b), b?.code, b?.details);
  }
  return body as T;
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
  const view = await api<SessionView>('/api/auth/key', { method: 'POST', json: { key }, session: null });
  return fromView(view, remembered);
}

/** Ends the session on the server (its cookie stops working everywhere) and here. */
export async function signOut(): Promise<void> {
  const s = get(session);
  try {
    if (s?.mode === 'session') await api('/api/auth/sign-out', { method: 'POST', session: s });
  } finally {
    session.set(null);
    projects.set([]);
  }
}

/** How this service signs people in, read without credentials (GET /api/auth/session). */
export async function authState(): Promise<AuthState> {
  return api<AuthState>('/api/auth/session', { session: null });
}

/**
 * The session to start with: the server's (the browser's cookie), or, with AUTH_MODE=none, the
 * anonymous one and every project (naming any project lists them all). Null means: sign in.
 */
export async function resumeSession(state: AuthState, remembered: string | null): Promise<{ session: Session; projects: ProjectRole[] } | null> {
  if (state.auth_mode === 'none') {
    const probe: Session = { mode: 'none', user: null, key: null, csrfToken: null, projectId: remembered ?? PROBE_PROJECT };
    const list = (await api<{ projects: Project[] }>('/api/projects', { session: probe })).projects ?? [];
    return { session: { ...probe, projectId: pickProject(list, remembered) }, projects: list };
  }
  return state.session ? fromView(state.session, remembered) : null;
}
