import type { Command } from 'commander';
import { RUN_STATUSES, type ControlAction, type RunStatus } from '../../core/model/eval-run.js';
import type { AgentEvalClient } from '../../sdk/client.js';
import { ServiceApiError } from '../../sdk/errors.js';
import { action, connect, orRunNotFound } from '../client.js';
import { CliError, colorsFor, printJson, println, printListing, type CliIo } from '../io.js';
import { resultsTable, runDetails, runsTable, summaryLine } from '../render-run.js';
import { intOption } from '../options.js';

interface ListOptions {
  suite?: string;
  status?: string;
  agent?: string;
  agentVersion?: string;
  limit: string;
  json?: boolean;
}

async function list(io: CliIo, opts: ListOptions): Promise<void> {
  if (opts.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(opts.status)) {
    throw new CliError(`--status must be one of: ${RUN_STATUSES.join(', ')}`);
  }
  const limit = intOption('--limit', opts.limit, 1, 500);
  const client = connect(io);
  const page = await client.runs.list({
    limit,
    suite_name: opts.suite,
    status: opts.status as RunStatus | undefined,
    agent_id: opts.agent,
    agent_version: opts.agentVersion,
  });
  printListing(io, opts, { answer: page, items: page.runs, noun: 'runs', total: page.total, table: runsTable });
}

async function show(io: CliIo, runId: string, opts: { json?: boolean }): Promise<void> {
  const client = connect(io);
  const run = await orRunNotFound(runId, client.runs.get(runId));
  if (opts.json) return printJson(io, run);
  const c = colorsFor(io.stdout, io.env);
  println(io.stdout, runDetails(c, run));
}

async function results(io: CliIo, runId: string, opts: { failedOnly?: boolean; json?: boolean }): Promise<void> {
  const client = connect(io);
  const [run, answer] = await orRunNotFound(runId, Promise.all([client.runs.get(runId), client.runs.results(runId, { failedOnly: opts.failedOnly })]));
  if (opts.json) return printJson(io, answer);
  const c = colorsFor(io.stdout, io.env);
  if (answer.results.length === 0) println(io.stdout, c.yellow(opts.failedOnly ? 'No failed cases' : 'No results yet'));
  else println(io.stdout, resultsTable(c, answer.results));
  println(io.stdout, summaryLine(c, run));
}

async function control(io: CliIo, client: AgentEvalClient, runId: string, verb: ControlAction, opts: { json?: boolean }): Promise<void> {
  try {
    const answer = await orRunNotFound(runId, client.runs.control(runId, verb));
    if (opts.json) return printJson(io, answer);
    println(io.stdout, `${verb} of run ${runId} accepted (status ${answer.status})`);
  } catch (err) {
    // 409: the run is final (or its workflow is gone); the service says which.
    if (err instanceof ServiceApiError && err.status === 409) throw new CliError((err.body as { error?: string } | undefined)?.error ?? err.message);
    throw err;
  }
}

export function registerRuns(program: Command, io: CliIo): void {
  const runs = program.command('runs').description('list and inspect evaluation runs');

  runs
    .command('list', { isDefault: true })
    .description("the project's runs, newest first")
    .option('--suite <name>', 'only runs of this suite')
    .option('--status <status>', `only runs with this status (${RUN_STATUSES.join(', ')})`)
    .option('--agent <name or id>', 'only runs of this agent')
    .option('--agent-version <version>', 'only runs of this agent version')
    .option('--limit <n>', 'most runs to show, 1-500', '20')
    .option('--json', 'print the answer as JSON')
    .action(action(io, (opts: ListOptions) => list(io, opts)));

  runs
    .command('show')
    .description('a run: status, progress, summary and scores by scorer')
    .argument('<run_id>')
    .option('--json', 'print the run as JSON')
    .action(action(io, (runId: string, opts: { json?: boolean }) => show(io, runId, opts)));

  runs
    .command('results')
    .description("a run's case results")
    .argument('<run_id>')
    .option('--failed-only', 'only failed cases')
    .option('--json', 'print the results as JSON')
    .action(action(io, (runId: string, opts: { failedOnly?: boolean; json?: boolean }) => results(io, runId, opts)));

  for (const verb of ['pause', 'resume', 'cancel'] as const) {
    runs
      .command(verb)
      .description(`${verb} a run`)
      .argument('<run_id>')
      .option('--json', 'print the answer as JSON')
      .action(action(io, (runId: string, opts: { json?: boolean }) => control(io, connect(io), runId, verb, opts)));
  }
}
