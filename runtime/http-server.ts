import http from 'node:http';
import type Koa from 'koa';

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/** Listens with `app` and closes gracefully: stops accepting, lets in-flight requests finish. */
export async function listen(app: Koa, port: number, host: string): Promise<RunningServer> {
  const handle = app.callback();
  const server = http.createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
