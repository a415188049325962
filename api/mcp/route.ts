import Router from '@koa/router';
import type { DispatchFunc } from 'light-my-request';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ApiDeps } from '../deps.js';
import { authenticate } from '../middleware/auth.js';
import { inProcessClient } from './in-process-client.js';
import { createMcpServer } from './server.js';

/**
 * POST /mcp: the MCP server over Streamable HTTP, stateless (docs/mcp.md). The request is
 * authenticated and rate-limited as any /api call (the query group); each tool then calls the
 * API's own routes in this process with the caller's credentials (`dispatch`: the app itself),
 * so permissions, validation, project isolation and errors are the API's. GET (a server-sent
 * stream) and DELETE (ending a session) have nothing to do without sessions: 405.
 */
export function mcpRouter(deps: ApiDeps, dispatch: DispatchFunc): Router {
  const router = new Router();
  const auth = authenticate(deps.auth, deps.limiter, deps.sessions, deps.projectStates);
  router.post('/mcp', auth, async (ctx) => {
    const api = inProcessClient(dispatch, ctx.req.headers, ctx.req.socket.remoteAddress);
    const server = createMcpServer(api, deps.config.version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.res.on('close', () => void transport.close().finally(() => void server.close()));
    await server.connect(transport);
    // The transport writes the answer (JSON-RPC, or its own 4xx for a malformed message).
    ctx.respond = false;
    await transport.handleRequest(ctx.req, ctx.res);
  });
  router.all('/mcp', auth, (ctx) => {
    ctx.status = 405;
    ctx.set('allow', 'POST');
    ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless, send POST' }, id: null };
  });
  return router;
}
