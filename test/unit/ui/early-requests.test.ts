import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { client, queryOf, type Session } from '../../../ui/src/lib/api.js';
import { apiTraceQuery, parseFilters } from '../../../ui/src/lib/filters.js';
import { sessionFilters, sessionFiltersQuery } from '../../../ui/src/lib/sessions.js';
import type { SessionListParams, TraceListParams } from '../../../sdk/browser.js';
import { REPO_ROOT } from '../../helpers/processes.js';

/**
 * app.html's early requests (ui/src/lib/early-requests.ts): its inline script, run as a browser
 * runs it, asks for a list page's first page while the scripts load, and the page's own first
 * call takes that answer instead of asking again, only when it would have asked exactly that.
 */
const APP_HTML = fs.readFileSync(path.join(REPO_ROOT, 'ui/src/app.html'), 'utf8');
const APP_SCRIPT = /<script>([\s\S]*?)<\/script>/.exec(APP_HTML)![1];

const EARLY_BODY = { traces: [], sessions: [], total: 7, next_cursor: null };

/** A URL with its parameters in one order (the page and app.html may order them differently). */
const sorted = (u: string) => {
  const url = new URL(u, 'http://x');
  url.searchParams.sort();
  return `${url.pathname}?${url.searchParams.toString()}`;
};

type Early = { url: string; project: string; response: Promise<Response | null> };

/** GET /api/auth/session's answer: signed in with a session reaching `projects`, signed out, or AUTH_MODE=none. */
type SessionState = { auth_mode: string; session: { projects: Array<{ id: string }> } | null };
const signedInTo = (...projects: string[]): SessionState => ({ auth_mode: 'required', session: { projects: projects.map((id) => ({ id })) } });
const SIGNED_OUT: SessionState = { auth_mode: 'required', session: null };
const NO_AUTH: SessionState = { auth_mode: 'none', session: null };

/**
 * Runs app.html's script on `href` with `project` remembered and `state` as the session's answer;
 * what it fetched (once its early list request settled) and left on window.
 */
async function openPage(href: string, project: string | null, { status = 200, state = signedInTo('p1') }: { status?: number; state?: SessionState } = {}) {
  const url = new URL(href, 'http://localhost:3000');
  const fetched: Array<{ url: string; headers: Record<string, string> }> = [];
  const win: { __agentEvalSession?: Promise<Response | null>; __agentEvalEarlyData?: Early } = {};
  vm.runInNewContext(APP_SCRIPT, {
    window: win,
    location: { pathname: url.pathname, search: url.search },
    URLSearchParams,
    localStorage: { getItem: (k: string) => (k === 'agent-eval.project' ? project : null) },
    fetch: (u: string, init: RequestInit = {}) => {
      fetched.push({ url: u, headers: (init.headers ?? {}) as Record<string, string> });
      if (u === '/api/auth/session') return Promise.resolve(new Response(JSON.stringify(state), { status: 200 }));
      return Promise.resolve(new Response(JSON.stringify(EARLY_BODY), { status }));
    },
  });
  vi.stubGlobal('window', win);
  const early = win.__agentEvalEarlyData;
  await early?.response;
  // The app still reads the session's answer whole (the script read a clone).
  expect(await (await win.__agentEvalSession)!.json()).toEqual(state);
  return { url, fetched, early };
}

/** The page's own fetches, after app.html's. */
function pageFetches() {
  const calls: string[] = [];
  vi.stubGlobal('fetch', (u: string) => {
    calls.push(u);
    return Promise.resolve(new Response(JSON.stringify({ traces: [], sessions: [], total: 0, next_cursor: null }), { status: 200 }));
  });
  return calls;
}

const on = (projectId: string): Session => ({ mode: 'session', user: null, key: null, csrfToken: 'c', projectId });
/** The traces page's first call, as the page makes it (ui/src/routes/traces/+page.svelte). */
const tracesPageCall = (url: URL, projectId = 'p1') =>
  client({ session: on(projectId) }).traces.list(queryOf<TraceListParams>(apiTraceQuery(parseFilters(url.searchParams))));
/** The sessions page's first call (ui/src/routes/sessions/+page.svelte). */
const sessionsPageCall = (url: URL, projectId = 'p1') =>
  client({ session: on(projectId) }).sessions.list(queryOf<SessionListParams>(sessionFiltersQuery(sessionFilters(url.searchParams))));

afterEach(() => vi.unstubAllGlobals());

describe("app.html's early list request", () => {
  it.each(['/traces', '/traces?sort=cost', '/traces?source=production', '/traces?sort=tokens&order=asc', '/traces?order=asc&source=evaluation&sort=duration'])(
    '%s: asked once, early, on the remembered project; the page takes that answer',
    async (href) => {
      const { url, fetched, early } = await openPage(href, 'p1');
      expect(fetched.map((f) => f.url)).toEqual(['/api/auth/session', early!.url]);
      expect(fetched[1].headers['x-project-id']).toBe('p1');
      const calls = pageFetches();
      expect(await tracesPageCall(url)).toEqual(EARLY_BODY);
      expect(calls).toEqual([]);
      // Taken once: the next call (the page's poll) asks the service.
      await tracesPageCall(url);
      expect(calls).toHaveLength(1);
      expect(sorted(calls[0])).toBe(sorted(early!.url));
    },
  );

  it('/sessions in its default view: the page takes the early answer', async () => {
    const { url, early } = await openPage('/sessions', 'p1');
    expect(early!.url).toBe('/api/sessions');
    const calls = pageFetches();
    expect(await sessionsPageCall(url)).toEqual(EARLY_BODY);
    expect(calls).toEqual([]);
  });

  it.each([
    ['/traces?name=checkout', 'p1'],
    ['/traces?sort=score&sort_score=quality', 'p1'],
    ['/traces?sort=bogus', 'p1'],
    ['/traces?sort=time', 'p1'],
    ['/traces?sort=cost&sort=tokens', 'p1'],
    ['/traces?limit=20', 'p1'],
    ['/traces?cols=name,cost', 'p1'],
    ['/traces?cursor=abc', 'p1'],
    ['/sessions?user_id=u-1', 'p1'],
    ['/runs', 'p1'],
    ['/traces/4bf92f3577b34da6a3ce929d0e0e4736', 'p1'],
    ['/traces', null],
  ])('%s (project %s): no early request, only the session', async (href, project) => {
    const { fetched, early } = await openPage(href, project);
    expect(early).toBeUndefined();
    expect(fetched.map((f) => f.url)).toEqual(['/api/auth/session']);
  });

  it('asks only once the session says this browser reaches the project: none signed out, AUTH_MODE=none asks', async () => {
    for (const state of [SIGNED_OUT, signedInTo('p2')]) {
      const { fetched, url } = await openPage('/traces', 'p1', { state });
      expect(fetched.map((f) => f.url)).toEqual(['/api/auth/session']);
      const calls = pageFetches();
      await tracesPageCall(url);
      expect(calls).toEqual(['/api/traces?limit=50']);
    }
    const { fetched } = await openPage('/traces', 'p1', { state: NO_AUTH });
    expect(fetched.map((f) => f.url)).toEqual(['/api/auth/session', '/api/traces?limit=50']);
  });

  it('another project, another query or a failed answer: the page asks itself, and the early answer is dropped', async () => {
    // The session chose another project than the remembered one.
    let page = await openPage('/traces?sort=cost', 'p1');
    let calls = pageFetches();
    await tracesPageCall(page.url, 'p2');
    expect(calls).toHaveLength(1);
    expect((window as { __agentEvalEarlyData?: Early }).__agentEvalEarlyData).toBeUndefined();

    // The page's first call on that path asks something else (here: another order).
    page = await openPage('/traces?sort=cost', 'p1');
    calls = pageFetches();
    await tracesPageCall(new URL('http://localhost/traces?sort=tokens'));
    expect(calls).toEqual(['/api/traces?limit=50&sort=tokens']);
    await tracesPageCall(page.url);
    expect(calls).toHaveLength(2);

    // The early answer was not 2xx (signed out, say): the page's call gets the real answer.
    page = await openPage('/traces', 'p1', { status: 401 });
    calls = pageFetches();
    await tracesPageCall(page.url);
    expect(calls).toEqual(['/api/traces?limit=50']);
  });
});
