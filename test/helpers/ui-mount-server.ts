import http from 'node:http';
import type Koa from 'koa';

/**
 * Serves `app` on an ephemeral loopback port with a stand-in API as its last middleware (it
 * answers `{ api: <path> }`), as the API's app mounts the dashboard in front of its routes.
 */
export async function serveWithStubApi(app: Koa): Promise<{ server: http.Server; base: string }> {
  app.use((ctx) => {
    ctx.body = { api: ctx.path };
  });
  const handle = app.callback();
  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}
