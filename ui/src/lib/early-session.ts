/**
 * The requests app.html starts while the app's scripts load (a cold page otherwise asks only once
 * the layout has mounted and the session is known, ~100-150 ms after the scripts are in):
 * - the session (GET /api/auth/session). Taken once: later boots (Retry, a sign-in) ask again.
 * - on a list opened bare, once the session answered that it is signed in (or AUTH_MODE=none) and
 *   reaches the remembered project, the list's first page in that project: `/traces` ->
 *   `GET /api/traces?limit=50`, `/sessions` -> `GET /api/sessions`, as those pages ask when they
 *   open with no filter (a browser test checks that the early answer is the one the page uses).
 *   The dashboard's first GET of that path and query in that project takes it, once, when it came
 *   back 2xx in the page's first seconds; otherwise the page asks as usual. The early call is marked in the page's
 *   performance timeline (`agent-eval early <url>`).
 */
declare global {
  interface Window {
    __agentEvalSession?: Promise<Response | null>;
    __agentEvalEarly?: { url: string; project: string; response: Promise<Response | null> };
  }
}

/** How long after the page opened an early list answer may still be taken (then it is stale). */
const EARLY_ANSWER_MS = 10_000;

/**
 * The early answer to `GET url` in `project` (see above), or null: none was asked, it was for
 * another call, it failed, or it is too old. Whatever the outcome, it is never taken twice.
 */
export async function takeEarlyAnswer(url: string, project: string | undefined): Promise<Response | null> {
  const early = typeof window === 'undefined' ? undefined : window.__agentEvalEarly;
  if (!early || early.url !== url || early.project !== project) return null;
  delete window.__agentEvalEarly;
  if (performance.now() > EARLY_ANSWER_MS) return null;
  const res = await early.response;
  return res?.ok ? res : null;
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
