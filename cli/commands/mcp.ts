import type { Command } from 'commander';
import { action } from '../client.js';
import { CliError, println, type CliIo } from '../io.js';
import { DEFAULT_URL, configPath, normalizeUrl, readConfigFile } from '../config.js';

const CLIENTS = ['claude-code', 'cursor', 'vscode', 'codex', 'claude-desktop'] as const;
type McpClientName = (typeof CLIENTS)[number];

/** The key in a snippet: the environment variable by default, so no secret lands in a file that may be committed. */
const KEY_VAR = 'AGENT_EVAL_API_KEY';

/** Each client's configuration for the server at `url` (docs/mcp.md, "Clients"). */
export function mcpSnippets(url: string, key: string | undefined): Record<McpClientName, string> {
  const header = key ?? `\${${KEY_VAR}}`;
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return {
    'claude-code': `claude mcp add --transport http agent-eval ${url} --header "x-api-key: ${key ?? `$${KEY_VAR}`}"`,
    cursor: `# ~/.cursor/mcp.json or .cursor/mcp.json\n${json({ mcpServers: { 'agent-eval': { url, headers: { 'x-api-key': key ?? `\${env:${KEY_VAR}}` } } } })}`,
    vscode: `# .vscode/mcp.json\n${json({
      servers: { 'agent-eval': { type: 'http', url, headers: { 'x-api-key': key ?? '${input:agent-eval-key}' } } },
      ...(key ? {} : { inputs: [{ id: 'agent-eval-key', type: 'promptString', description: 'agent-eval API key', password: true }] }),
    })}`,
    codex: `# ~/.codex/config.toml\n[mcp_servers.agent-eval]\nurl = "${url}"\n${key ? `http_headers = { "x-api-key" = "${key}" }` : `env_http_headers = { "x-api-key" = "${KEY_VAR}" }`}`,
    'claude-desktop': `# claude_desktop_config.json (through the mcp-remote bridge)\n${json({
      mcpServers: {
        'agent-eval': { command: 'npx', args: ['mcp-remote', url, '--header', `x-api-key:${header}`], env: key ? {} : { [KEY_VAR]: `<your key>` } },
      },
    })}`,
  };
}

/** `agent-eval mcp`: how to point a coding agent's MCP client at this service. */
export function registerMcp(program: Command, io: CliIo): void {
  program
    .command('mcp')
    .description('print the MCP configuration of common clients (Claude Code, Cursor, VS Code, Codex, Claude Desktop) for this service')
    .option('--client <name>', `one client: ${CLIENTS.join(', ')}`)
    .option('--with-key', `write the API key itself into the snippet (default: read from $${KEY_VAR})`)
    .action(
      action(io, (opts: { client?: string; withKey?: boolean }) => {
        const file = readConfigFile(configPath(io.env));
        const base = normalizeUrl(io.env.AGENT_EVAL_URL?.trim() || file.url || DEFAULT_URL);
        const key = opts.withKey ? io.env.AGENT_EVAL_API_KEY?.trim() || file.api_key : undefined;
        if (opts.withKey && !key) throw new CliError('No API key: run agent-eval login, or set AGENT_EVAL_API_KEY');
        if (opts.client && !(CLIENTS as readonly string[]).includes(opts.client))
          throw new CliError(`Unknown client ${opts.client}: one of ${CLIENTS.join(', ')}`);
        const snippets = mcpSnippets(`${base}/mcp`, key);
        for (const name of CLIENTS) {
          if (opts.client && opts.client !== name) continue;
          if (!opts.client) println(io.stdout, `## ${name}`);
          println(io.stdout, snippets[name]);
          if (!opts.client) println(io.stdout);
        }
      }),
    );
}
