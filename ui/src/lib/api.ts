import { writable, get } from 'svelte/store';
import type { Project } from './types.js';

/**
 * Who the dashboard is, as any API client: an API key (sent as `x-api-key`) and the chosen
 * project (sent as `x-project-id`). With `AUTH_MODE=none` the service wants no key, only the
 * project header (docs/security.md).
 */
export interface Session {
  mode: 'key' | 'none';
  key: string | null;
  projectId: string | null;
}

const STORAGE_KEY = 'agent-eval.session';

export const session = writable<Session | null>(null);
/** The projects the credential can reach (GET /api/projects). */
export const projects = writable<Project[]>([]);

export function loadSession(storage: Pick<Storage, 'getItem'> = localStorage): Session | null {
  try {
    const raw = storage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Partial<Session>;
    if (s.mode !== 'key' && s.mode !== 'none') return null;
    if (s.mode === 'key' && typeof s.key !== 'string') return null;
    return { mode: s.mode, key: s.key ?? null, projectId: typeof s.projectId === 'string' ? s.projectId : null };
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  session.set(s);
  if (s) localStorage.setItem(STORAGE_KEY, JSON.stringify(s));
  else localStorage.removeItem(STORAGE_KEY);
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
  if (status === 401) return `The API refused the credentials${what ? ` (${what})` : ''}. Sign in again.`;
  if (status === 403) return `This key may not do that${detail ? `: ${detail}` : what ? `: ${what}` : ''}.`;
  if (status === 429) return 'Too many requests for this project right now (rate limit); try again in a minute.';
  if (status === 503) return `The service is unavailable${what ? `: ${what}` : ''}. It may be starting or a store may be down; try again shortly.`;
  return `${what || `Request failed with HTTP ${status}`}${detail ? ` (${detail})` : ''}`;
}

/** Headers for a session: the key and the project, as any API client sends them. */
export function authHeaders(s: Session | null): Record<string, string> {
  const h: Record<string, string> = {};
  if (s?.key) h['x-api-key'] = s.key;
  if (s?.projectId) h['x-project-id'] = s.projectId;
  return h;
}

/** GET (or another method) on the API as the signed-in session; throws ApiError with words to show. */
export async function api<T>(
  path: string,
  init: { signal?: AbortSignal; method?: string; json?: unknown; session?: Session | null; text?: { body: string; contentType: string } } = {},
): Promise<T> {
  const s = init.session === undefined ? get(session) : init.session;
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders(s) };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  // A body that is not JSON, e.g. a suite as YAML (Content-Type application/yaml).
  else if (init.text) headers['content-type'] = init.text.contentType;
  let res: Response;
  try {
    res = await fetch(path, { method: init.method ?? 'GET', headers, signal: init.signal, body: init.json === undefined ? init.text?.body : JSON.stringify(init.json) });
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

/** A project to name while listing projects with AUTH_MODE=none, before any is known (see detectNoAuth). */
const PROBE_PROJECT = 'default';

/**
 * Checks a key against GET /api/projects and returns the session to keep, or throws ApiError
 * (401 for a wrong or revoked key).
 */
export async function signIn(key: string, remembered: string | null = null): Promise<{ session: Session; projects: Project[] }> {
  const probe: Session = { mode: 'key', key, projectId: null };
  const body = await api<{ projects: Project[] }>('/api/projects', { session: probe });
  const list = body.projects ?? [];
  return { session: { ...probe, projectId: pickProject(list, remembered) }, projects: list };
}

/**
 * Whether the service runs with AUTH_MODE=none (GET /api/health, which needs no credentials,
 * says `auth: "none"`), and then its projects: naming any project lists them all, since an
 * anonymous caller reaches all.
 */
export async function detectNoAuth(remembered: string | null = null): Promise<{ session: Session; projects: Project[] } | null> {
  const health = await api<{ auth?: string }>('/api/health', { session: { mode: 'none', key: null, projectId: null } }).catch(() => null);
  if (health?.auth !== 'none') return null;
  const probe: Session = { mode: 'none', key: null, projectId: remembered ?? PROBE_PROJECT };
  const body = await api<{ projects: Project[] }>('/api/projects', { session: probe });
  const list = body.projects ?? [];
  return { session: { mode: 'none', key: null, projectId: pickProject(list, remembered) }, projects: list };
}

/** Restores a stored session (re-checking it) or finds AUTH_MODE=none; null means: sign in. */
export async function resumeSession(stored: Session | null): Promise<{ session: Session; projects: Project[] } | null> {
  if (stored?.mode === 'key' && stored.key) {
    try {
      return await signIn(stored.key, stored.projectId);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return null;
      throw err;
    }
  }
  return detectNoAuth(stored?.projectId ?? null);
}
