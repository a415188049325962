import { z } from 'zod';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentEvalApi } from '../../sdk/endpoints.js';
import { CaseOptionsFields } from '../../core/model/dataset.js';
import { attempt, clip, MAX_ANSWER_CHARS, readTool } from './tool-kit.js';
import { Id } from './tools-traces.js';

/** Suites and prompts listed as resources, at most. */
const LISTED = 100;

const json = (uri: URL, value: unknown): ReadResourceResult => ({
  contents: [{ uri: uri.href, mimeType: 'application/json', text: clip(JSON.stringify(value, null, 1), MAX_ANSWER_CHARS) }],
});
const one = (v: string | string[]) => (Array.isArray(v) ? v[0] : v);

/**
 * Resources of one kind at `uriTemplate` (one variable: the item's key), read as the API's JSON;
 * the first LISTED items are listed.
 */
function jsonResources(
  server: McpServer,
  name: string,
  uriTemplate: string,
  about: { title: string; description: string },
  list: () => Promise<Array<{ key: string; name: string; description?: string }>>,
  read: (key: string) => Promise<unknown>,
): void {
  const uriOf = (key: string) => uriTemplate.replace(/\{\w+\}/, encodeURIComponent(key));
  server.registerResource(
    name,
    new ResourceTemplate(uriTemplate, {
      list: async () => ({ resources: (await list()).map(({ key, ...item }) => ({ uri: uriOf(key), ...item, mimeType: 'application/json' })) }),
    }),
    { ...about, mimeType: 'application/json' },
    async (uri, variables) => json(uri, await read(decodeURIComponent(one(Object.values(variables)[0])))),
  );
}

/** Adding traces to a suite and reading a prompt version; suites and prompts as resources. */
export function suiteTools(server: McpServer, api: () => AgentEvalApi): void {
  const { fields, expected_from_output } = CaseOptionsFields;
  server.registerTool(
    'add_trace_to_suite',
    {
      title: 'Add a trace to a suite',
      description:
        "Adds traces (or one span of a trace, or a session as one conversation) to a suite as cases, as POST /api/suites/{id}/cases/from-traces does: the span's input, its output as the expected output (or kept for reference), its tool calls as the expected trajectory; each case records its source trace. Writes a new suite version; preview: true shows the cases and writes nothing.",
      inputSchema: {
        suite_id: Id.describe("The suite's id"),
        trace_ids: z.array(Id).min(1).max(100).optional(),
        span_id: Id.optional(),
        session_id: z.string().min(1).max(512).optional(),
        case_name: z.string().min(1).max(512).optional(),
        fields: fields.optional(),
        expected_from_output: expected_from_output.optional(),
        preview: z.boolean().default(false),
        idempotency_key: z.string().min(1).max(200).optional(),
      },
    },
    ({ suite_id, idempotency_key, ...body }) =>
      attempt(async () => {
        const added = await api().suites.addFromTraces(suite_id, body, { idempotencyKey: idempotency_key });
        return { suite: added.suite, cases: added.cases.map((c) => clip(JSON.stringify(c), 2_000)) };
      }),
  );

  readTool(
    server,
    'get_prompt',
    {
      title: 'Read a prompt version',
      description: 'A prompt by id or name: the newest version, or the one given by version or label (template or messages, config, variables, labels).',
      inputSchema: {
        prompt: Id.describe("The prompt's id or name"),
        version: z.number().int().min(1).optional(),
        label: z.string().min(1).max(200).optional(),
      },
    },
    ({ prompt, version, label }) => api().prompts.get(prompt, { version, label }),
  );

  jsonResources(
    server,
    'suite',
    'agent-eval://suites/{id}',
    { title: 'Suites', description: "A suite's latest version: its definition and cases" },
    async () =>
      (await api().suites.list({ limit: LISTED })).suites.map((s) => ({
        key: s.id,
        name: s.name,
        description: `Suite ${s.name}, version ${s.version}, ${s.case_count} cases`,
      })),
    (id) => api().suites.get(id),
  );
  jsonResources(
    server,
    'prompt',
    'agent-eval://prompts/{name}',
    { title: 'Prompts', description: "A prompt's newest version" },
    async () => (await api().prompts.list({ limit: LISTED })).prompts.map((p) => ({ key: p.name, name: p.name })),
    (name) => api().prompts.get(name),
  );
}
