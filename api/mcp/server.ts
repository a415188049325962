import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AgentEvalApi } from '../../sdk/endpoints.js';
import { traceTools } from './tools-traces.js';
import { runTools } from './tools-runs.js';
import { suiteTools } from './tools-suites.js';

/** What the server tells a client about itself and how its tools go together. */
const INSTRUCTIONS = [
  "agent-eval holds an AI agent's production traces and its evaluation runs.",
  'Find traces with search_traces, read one with get_trace (long texts are cut: get_span_text reads them whole), sessions with list_sessions and get_session.',
  'Runs: list_runs, get_run, get_run_failures (failed cases with reasons), compare_runs; start_run starts a run of a suite: poll get_run until it ends.',
  'add_trace_to_suite turns a trace into a test case; get_prompt reads a prompt version; suites and prompts are also resources.',
].join(' ');

/**
 * One MCP server over `api`: the API's routes called with the caller's credentials, so every
 * tool can do what the caller's key can do through the API, and nothing more. Made per request
 * (the transport is stateless): it holds nothing but its client.
 */
export function createMcpServer(api: AgentEvalApi, version: string): McpServer {
  const server = new McpServer({ name: 'agent-eval', version }, { instructions: INSTRUCTIONS });
  const client = () => api;
  traceTools(server, client);
  runTools(server, client);
  suiteTools(server, client);
  return server;
}
