import type Koa from 'koa';
import { createApp } from '../../api/app.js';
import type { ApiDeps } from '../../api/deps.js';
import { createOtlpHttpRouter } from '../../collector/index.js';

/** A route of the API's port as its router holds it: `path` in the router's form (`/api/traces/:traceId`). */
export interface RouterRoute {
  method: string;
  path: string;
  params: string[];
  /** Registered with `router.all` (every method: a catch-all that answers 405 to the ones the path does not serve). */
  all: boolean;
}

/**
 * Every route of the service's port as the routers hold them: createApp wired with stand-ins that
 * are never called (building the routers only reads properties), the OTLP/HTTP receiver's router
 * included, then each router's layers (HEAD left out: Koa's router adds it to every GET).
 */
export function routerRoutes(): RouterRoute[] {
  const stub: unknown = new Proxy(function () {}, { get: (_t, key) => (key === 'then' ? undefined : stub), apply: () => stub });
  const deps = {
    config: { maxBodyBytes: 1024, version: 'test' },
    logger: stub,
    analytics: stub,
    metadata: stub,
    auth: stub,
    limiter: stub,
    collector: stub,
    scorers: stub,
    otlpRouter: createOtlpHttpRouter(stub as Parameters<typeof createOtlpHttpRouter>[0]),
  } as unknown as ApiDeps;
  const app: Koa = createApp(deps);
  const routes: RouterRoute[] = [];
  for (const middleware of app.middleware as Array<{ router?: { stack: Array<{ methods: string[]; path: string; paramNames: Array<{ name: string }> }> } }>) {
    for (const layer of middleware.router?.stack ?? []) {
      const all = ['GET', 'PUT', 'PATCH', 'POST', 'DELETE', 'OPTIONS'].every((m) => layer.methods.includes(m));
      for (const method of layer.methods) {
        if (method !== 'HEAD') routes.push({ method, path: layer.path, params: layer.paramNames.map((p) => p.name), all });
      }
    }
  }
  return routes;
}

/** `/api/traces/:traceId` -> `/api/traces/{traceId}`. */
export const openApiPath = (routerPath: string): string => routerPath.replace(/:(\w+)/g, '{$1}');
