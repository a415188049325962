import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The MCP SDK's own client over Streamable HTTP to a service's /mcp, with `key`. */
export async function mcpClient(apiUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'agent-eval-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', apiUrl), { requestInit: { headers: { 'x-api-key': key } } }));
  return client;
}

/** A tool's answer: its JSON parsed, or its error text when it failed. */
export async function callTool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<{ error: string | null; value: T }> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  if (res.isError) return { error: text, value: undefined as T };
  return { error: null, value: JSON.parse(text) as T };
}
