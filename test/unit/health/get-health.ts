import Koa from 'koa';
import { healthRouter, type HealthDeps } from '../../../api/routes/health.js';
import { listen } from '../../../runtime/http-server.js';

/** What GET /api/health answers: the overall status, each service's, and the reason of each that is not ok. */
export interface HealthBody {
  status: string;
  services: Record<string, string>;
  reasons?: Record<string, string>;
  [field: string]: unknown;
}

/** GET /api/health of the health router alone over `deps`, on a port of its own closed once answered; `ms` is the request's time. */
export async function getHealth(deps: HealthDeps): Promise<{ status: number; body: HealthBody; ms: number }> {
  const app = new Koa();
  app.use(healthRouter(deps).routes());
  const server = await listen(app, 0, '127.0.0.1');
  try {
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${server.port}/api/health`);
    const body = (await res.json()) as HealthBody;
    return { status: res.status, body, ms: performance.now() - t0 };
  } finally {
    await server.close();
  }
}
