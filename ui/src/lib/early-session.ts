/**
 * The session request app.html starts while the app's scripts load (a cold page otherwise asks
 * only once the layout has mounted, and its data waits for the answer). Taken once: later boots
 * (Retry, a sign-in) ask again.
 */
declare global {
  interface Window {
    __agentEvalSession?: Promise<Response | null>;
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
