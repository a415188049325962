import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AgentEvalApi } from '../../sdk/endpoints.js';
import { RUN_STATUSES, type CaseResultView, type RunView } from '../../core/model/eval-run.js';
import { attempt, clip, readTool } from './tool-kit.js';
import { condenseComparison } from './condense-comparison.js';
import { Id } from './tools-traces.js';

/** A run in the fields a model acts on. */
const runLine = (r: Pick<RunView, 'run_id' | 'status' | 'progress' | 'summary' | 'error' | 'created_at' | 'completed_at'> & Partial<RunView>) => ({
  run_id: r.run_id,
  name: r.name ?? null,
  suite: r.suite_name ?? null,
  suite_version: r.suite_version ?? null,
  agent: r.agent_name ?? null,
  agent_version: r.agent_version ?? null,
  status: r.status,
  progress: r.progress,
  summary: r.summary,
  error: r.error === null ? null : clip(r.error, 500),
  created_at: r.created_at,
  completed_at: r.completed_at,
});

/** A failed case with its reasons: each failing scorer's score and reason, the agent's error. */
const failedCase = (c: CaseResultView, textChars: number) => ({
  case_index: c.case_index,
  case_name: clip(c.case_name, 200),
  status: c.status,
  avg_score: c.avg_score,
  error: c.error ? clip(c.error, textChars) : null,
  trace_id: c.trace_id,
  scorers: Object.fromEntries(Object.entries(c.details).map(([name, d]) => [name, { score: d.score, reason: d.reason ? clip(d.reason, textChars) : null }])),
  output: c.output === undefined || c.output === null ? null : clip(typeof c.output === 'string' ? c.output : JSON.stringify(c.output), textChars),
});

/** Tools over evaluation runs: list, status, failures, compare, start. */
export function runTools(server: McpServer, api: () => AgentEvalApi): void {
  readTool(
    server,
    'list_runs',
    {
      title: 'List evaluation runs',
      description: 'Evaluation runs newest first, with their status, progress and summary (pass rate, average score); filter by status, suite or agent.',
      inputSchema: {
        status: z.enum(RUN_STATUSES).optional(),
        suite_name: z.string().min(1).max(512).optional(),
        agent_id: z.string().min(1).max(512).optional(),
        limit: z.number().int().min(1).max(50).default(20),
        offset: z.number().int().min(0).max(1_000_000).default(0),
      },
    },
    async (args) => {
      const page = await api().runs.list(args);
      return { runs: page.runs.map(runLine), total: page.total };
    },
  );

  readTool(
    server,
    'get_run',
    {
      title: 'Read a run (poll it)',
      description: "A run's status, progress and summary. Poll it after start_run until status is completed, failed or cancelled.",
      inputSchema: { run_id: Id },
    },
    async ({ run_id }) => runLine(await api().runs.get(run_id)),
  );

  readTool(
    server,
    'get_run_failures',
    {
      title: "Read a run's failed cases",
      description:
        "A run's failed cases with their reasons (each scorer's score and reason, the agent's error, the case's trace id), and the failures grouped by signature (error type and message, failing span, failing scorer) with counts.",
      inputSchema: { run_id: Id, limit: z.number().int().min(1).max(50).default(10), text_chars: z.number().int().min(50).max(2_000).default(400) },
    },
    async ({ run_id, limit, text_chars }) => {
      const [{ results }, analysis] = await Promise.all([api().runs.results(run_id, { failedOnly: true }), api().runs.failures(run_id)]);
      return {
        run_id,
        failed_cases: results.length,
        cases: results.slice(0, limit).map((c) => failedCase(c, text_chars)),
        groups: analysis.groups.slice(0, 10).map((g) => ({ key: g.key, count: g.count, signature: g.signature, label: g.label })),
      };
    },
  );

  readTool(
    server,
    'compare_runs',
    {
      title: 'Compare two runs',
      description:
        "What changed from the baseline run to the candidate: a summary sentence, case counts, significance, latency and cost, the scorers that moved, and a page of the changed cases (worst first) with both runs' input, expected, output and scorer reasons. Unchanged cases are counted, not listed; page with offset = next_offset.",
      inputSchema: {
        baseline_run_id: Id,
        candidate_run_id: Id,
        threshold: z.number().min(0).max(1).optional(),
        alpha: z.number().gt(0).lt(1).optional(),
        limit: z.number().int().min(1).max(20).default(5).describe('Changed cases in this answer'),
        offset: z.number().int().min(0).max(1_000_000).default(0).describe("The previous answer's next_offset"),
        text_chars: z.number().int().min(100).max(2_000).default(800).describe('Characters of each text at most'),
      },
    },
    async ({ baseline_run_id, candidate_run_id, threshold, alpha, limit, offset, text_chars }) =>
      condenseComparison(await api().compare(baseline_run_id, candidate_run_id, { threshold, alpha }), { limit, offset, textChars: text_chars }),
  );

  server.registerTool(
    'start_run',
    {
      title: 'Start a run of a suite',
      description:
        'Starts an evaluation run of a stored suite against its agent (or agent_id), as POST /api/evals/runs does. Answers the run; poll get_run until it ends, then read get_run_failures.',
      inputSchema: {
        suite_name: z.string().min(1).max(512),
        agent_version: z.string().min(1).max(512).default('unversioned'),
        agent_id: z.string().min(1).max(512).optional(),
        suite_version: z.number().int().min(1).optional(),
        repetitions: z.number().int().min(1).max(10).optional(),
        idempotency_key: z.string().min(1).max(200).optional().describe('The same key again answers the same run instead of starting another'),
      },
    },
    ({ idempotency_key, repetitions, ...body }) =>
      attempt(async () =>
        runLine(await api().runs.createFromSuite({ ...body, config: repetitions ? { repetitions } : {} }, { idempotencyKey: idempotency_key })),
      ),
  );
}
