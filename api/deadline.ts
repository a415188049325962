/**
 * How long /api/health and /metrics wait for one dependency (a store ping, the Kafka lag) before
 * reporting it down. All are asked at once, so either answers within about this long, under the
 * one second a load balancer or a Prometheus scrape typically allows.
 */
export const DEPENDENCY_TIMEOUT_MS = 800;

/** What a bounded call came to: its value, or why there is none. */
export type Bounded<T> = { ok: true; value: T } | { ok: false; reason: 'timeout' | 'error'; error?: unknown };

/**
 * Runs `work` and settles after at most `ms`. A call still running then is left to finish on its
 * own and its late result dropped (a handler stays attached, so a late rejection is not unhandled).
 */
export async function withDeadline<T>(work: () => Promise<T>, ms: number): Promise<Bounded<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Bounded<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: 'timeout' }), ms);
  });
  const attempt = (async (): Promise<Bounded<T>> => {
    try {
      return { ok: true, value: await work() };
    } catch (error) {
      return { ok: false, reason: 'error', error };
    }
  })();
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
