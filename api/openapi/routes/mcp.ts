import { z } from 'zod';
import { defineRoutes, routeGroup } from '../route-spec.js';

/**
 * JSON-RPC 2.0 as MCP's Streamable HTTP transport carries it (the official SDK parses and answers
 * it: api/mcp/route.ts). Each method's params and result are the MCP specification's, not ours:
 * they stay objects here.
 */
const RpcId = z.union([z.string(), z.number().int()]);
const RpcMessage = z.object({
  jsonrpc: z.literal('2.0'),
  id: RpcId.optional().describe('Absent on a notification'),
  method: z.string().min(1).describe('initialize, tools/list, tools/call, resources/list, resources/read, notifications/initialized, ...'),
  params: z.looseObject({}).optional().describe("The method's params (MCP specification)"),
});
const RpcResult = z.object({ jsonrpc: z.literal('2.0'), id: RpcId, result: z.looseObject({}).describe("The method's result (MCP specification)") });
const RpcError = z.object({
  jsonrpc: z.literal('2.0'),
  id: RpcId.nullable().optional(),
  error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
});
const RpcAnswer = z.union([RpcResult, RpcError]);

/** The MCP server (docs/mcp.md; api/mcp/route.ts): one JSON-RPC endpoint, stateless; other methods answer 405. */
const mcpRoutes = routeGroup('MCP', 'authenticated');

export const MCP_ROUTES = defineRoutes([
  mcpRoutes.post('/mcp', 'mcp', 'The MCP server over Streamable HTTP (JSON-RPC 2.0): tools to search traces, read runs, start runs', {
    description:
      "A Model Context Protocol endpoint for coding agents (docs/mcp.md), authenticated and rate-limited as the API; each tool calls the API's routes with the caller's credentials. Stateless: no session id, no server-sent stream.",
    body: z.union([RpcMessage, z.array(RpcMessage).min(1)]).describe('A JSON-RPC 2.0 request or notification, or a batch of them'),
    answers: {
      200: z.union([RpcAnswer, z.array(RpcAnswer)]).describe('The JSON-RPC 2.0 response(s)'),
      202: { description: 'A notification, accepted' },
      400: RpcError.describe('A JSON-RPC error: the message is not JSON-RPC'),
      406: RpcError.describe('A JSON-RPC error: the Accept header must allow application/json and text/event-stream'),
      415: RpcError.describe('A JSON-RPC error: the body must be application/json'),
    },
  }),
]);
