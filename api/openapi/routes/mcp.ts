import { DocumentedObject as doc, defineRoutes } from '../route-spec.js';

/** The MCP server (docs/mcp.md; api/mcp/route.ts): one JSON-RPC endpoint, stateless; other methods answer 405. */
export const MCP_ROUTES = defineRoutes([
  {
    method: 'post',
    path: '/mcp',
    operationId: 'mcp',
    summary: 'The MCP server over Streamable HTTP (JSON-RPC 2.0): tools to search traces, read runs, start runs',
    description:
      "A Model Context Protocol endpoint for coding agents (docs/mcp.md), authenticated and rate-limited as the API; each tool calls the API's routes with the caller's credentials. Stateless: no session id, no server-sent stream.",
    tag: 'MCP',
    access: 'authenticated',
    body: doc('A JSON-RPC 2.0 request or notification (initialize, tools/list, tools/call, resources/list, resources/read, ...)'),
    answers: {
      200: doc('The JSON-RPC 2.0 response'),
      202: { description: 'A notification, accepted' },
      400: doc('A JSON-RPC error: the message is not JSON-RPC'),
      406: doc('A JSON-RPC error: the Accept header must allow application/json and text/event-stream'),
      415: doc('A JSON-RPC error: the body must be application/json'),
    },
  },
]);
