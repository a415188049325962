import type http from 'node:http';

/** Closes a test's HTTP server now: its open connections (keep-alive ones included) are ended, and it stops listening. */
export function closeHttpServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
