/**
 * The requests app.html starts while the app's scripts load. A cold page otherwise asks only once
 * its scripts have loaded and the layout and page have mounted (~500-700 ms on this machine), and
 * its data then takes as long again; started early, the two overlap (docs/architecture.md,
 * "Dashboard"). Two of them:
 * - who is signed in (GET /api/auth/session), for every page;
 * - the first data call of a list page in its default views (`/traces`, sorted or by source, and
 *   `/sessions`), on the remembered project. The page takes it only if its own first call to that
 *   path asks for exactly that URL on the same project (test/unit/ui/early-requests.test.ts holds
 *   app.html's URLs to the pages' own queries); any other first call drops it.
 * Each is taken once: later boots (Retry, a sign-in) and later calls ask again.
 */
declare global {
  interface Window {
    __agentEvalSession?: Promise<Response | null>;
    __agentEvalEarlyData?: { url: string; project: string; response: Promise<Response | null> };
  }
}

/** The early answer to GET /api/auth/session when it came back 200, else null (ask again). */
export async function takeEarlySession<T>(): Promise<T | null> {
  const early = typeof window === 'undefined' ? undefined : window.__agentEvalSession;
  if (!early) return null;
  delete window.__agentEvalSession;
  const res = await early;
  if (!res?.ok) return null;
  try {
    return (await res.json()) as T;
  } catch {
    return null;
  }
}

/** The performance mark a page leaves when its first data call took app.html's early answer. */
export const EARLY_DATA_MARK = 'agent-eval:early-data';

/** A URL's path and its parameters in one order, so two URLs that ask the same compare equal. */
function sameRequest(a: string, b: string): boolean {
  const parts = (u: string) => {
    const url = new URL(u, 'http://x');
    url.searchParams.sort();
    return `${url.pathname}?${url.searchParams.toString()}`;
  };
  return parts(a) === parts(b);
}

/**
 * The early answer to the page's GET of `url` on `project`, when app.html asked exactly that and it
 * came back 2xx; else null (fetch it). The first GET of the early request's path takes it or drops it.
 */
export async function takeEarlyData(url: string, project: string | undefined): Promise<Response | null> {
  const early = typeof window === 'undefined' ? undefined : window.__agentEvalEarlyData;
  if (!early || new URL(early.url, 'http://x').pathname !== new URL(url, 'http://x').pathname) return null;
  delete window.__agentEvalEarlyData;
  if (!sameRequest(early.url, url) || early.project !== project) return null;
  const res = await early.response;
  if (!res?.ok) return null;
  // Seen by the browser tests and the UI bench: the page's data came from the early request.
  performance.mark(EARLY_DATA_MARK, { detail: early.url });
  return res;
}
