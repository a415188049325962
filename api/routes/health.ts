import net from 'node:net';
import Router from '@koa/router';
import type { ApiDeps } from '../deps.js';

type ServiceStatus = 'ok' | 'unavailable' | 'not_configured';

const PING_TIMEOUT_MS = 2_000;

async function check(ping: () => Promise<boolean>): Promise<ServiceStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([ping(), timeout])) ? 'ok' : 'unavailable';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a TCP connection to `host:port` opens. The workflow engine has no client in this
 * process yet (evaluation runs come later), so reachability is what can honestly be reported.
 */
function tcpReachable(address: string): Promise<boolean> {
  const at = address.lastIndexOf(':');
  const host = at > 0 ? address.slice(0, at) : address;
  const port = at > 0 ? Number(address.slice(at + 1)) : 7233;
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PING_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * GET /api/health: 200 `healthy` when the required stores answer, 200 `degraded` when one of
 * them does not, 503 `unhealthy` when none does. The workflow engine is reported, not required.
 */
export function healthRouter(deps: ApiDeps): Router {
  const router = new Router();
  router.get('/api/health', async (ctx) => {
    const temporal = deps.config.temporalAddress;
    const [analytics, metadata, workflow, ingest] = await Promise.all([
      check(() => deps.analytics.ping()),
      check(() => deps.metadata.ping()),
      temporal ? check(() => tcpReachable(temporal)) : Promise.resolve<ServiceStatus>('not_configured'),
      Promise.resolve(deps.sinkStats?.()).catch(() => undefined),
    ]);
    const services: Record<string, ServiceStatus> = {
      analytical_store: analytics,
      metadata_store: metadata,
      workflow_engine: workflow,
    };
    const required = [analytics, metadata];
    const up = required.filter((s) => s === 'ok').length;
    const status = up === required.length ? 'healthy' : up === 0 ? 'unhealthy' : 'degraded';
    ctx.status = status === 'unhealthy' ? 503 : 200;
    ctx.body = { status, version: deps.config.version, services, ...(ingest ? { ingest } : {}) };
  });
  return router;
}
