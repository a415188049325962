import { randomUUID } from 'node:crypto';
import { Option, type Command } from 'commander';
import type { RunView } from '../../core/model/eval-run.js';
import type { SuiteDefinition } from '../../core/model/suite.js';
import type { AgentEvalClient } from '../../sdk/client.js';
import { ServiceApiError } from '../../sdk/errors.js';
import { agentForEndpoint, isEndpoint } from '../agent-ref.js';
import { action, connect } from '../client.js';
import { CliError, colorsFor, println, type CliIo } from '../io.js';
import { intOption, parseMinScore } from '../options.js';
import { reportRun } from '../report-run.js';
import { loadSuiteFile, looksLikeFile } from '../suite-file.js';
import { findSuite, pushSuite } from '../suite-push.js';
import { watchRun, type ConversationCases } from '../watch-run.js';
import { runLocal } from './run-local.js';

export interface RunOptions {
  agent?: string;
  agentVersion: string;
  minScore?: string;
  local?: boolean;
  concurrency?: string;
  timeoutMs?: string;
  repetitions?: string;
  pollInterval: string;
  json?: boolean;
}

/** The suite of the argument: a YAML file pushed to the service (new version only when changed), or a stored suite's name. */
async function suiteToRun(
  client: AgentEvalClient,
  arg: string,
  def: SuiteDefinition | undefined,
): Promise<{ name: string; version: number; note: string; definition: SuiteDefinition }> {
  if (!def) {
    const stored = await findSuite(client, arg);
    const { definition } = await client.suites.get(stored.id, { version: stored.version });
    return { name: stored.name, version: stored.version, note: 'stored', definition };
  }
  const { suite, outcome } = await pushSuite(client, def);
  return { name: suite.name, version: suite.version, note: outcome, definition: def };
}

/** The suite's conversation cases by index (a run's cases are the suite's, in order): their progress shows turn by turn. */
export function conversationCases(def: Pick<SuiteDefinition, 'cases'>): ConversationCases {
  const found: ConversationCases = new Map();
  def.cases.forEach((c, i) => {
    if (c.turns) found.set(i, { of: c.turns.length, kind: 'scripted' });
    else if (c.simulation) found.set(i, { of: c.simulation.max_turns, kind: 'simulated' });
  });
  return found;
}

async function startManagedRun(io: CliIo, suiteArg: string, opts: RunOptions): Promise<void> {
  const minScore = parseMinScore(opts.minScore);
  const concurrency = intOption('--concurrency', opts.concurrency, 1, 1000);
  const timeoutMs = intOption('--timeout-ms', opts.timeoutMs, 1, 300_000);
  const repetitions = intOption('--repetitions', opts.repetitions, 1, 100);
  const pollMs = intOption('--poll-interval', opts.pollInterval, 50, 60_000) ?? 1000;
  // The file is checked before anything is sent: its errors need no service.
  const def = looksLikeFile(suiteArg) ? (await loadSuiteFile(suiteArg)).definition : undefined;
  const client = connect(io);
  const info = opts.json ? io.stderr : io.stdout;
  const c = colorsFor(info, io.env);

  const suite = await suiteToRun(client, suiteArg, def);
  const agentId = opts.agent === undefined ? undefined : isEndpoint(opts.agent) ? await agentForEndpoint(client, opts.agent) : opts.agent;
  let created: RunView;
  try {
    // One Idempotency-Key per command: a request whose answer was lost is sent again and starts no second run.
    created = await client.runs.createFromSuite(
      {
        suite_name: suite.name,
        suite_version: suite.version,
        agent_version: opts.agentVersion,
        ...(agentId ? { agent_id: agentId } : {}),
        config: {
          parallel: concurrency !== undefined,
          ...(concurrency ? { concurrency } : {}),
          ...(timeoutMs ? { timeout_ms: timeoutMs } : {}),
          ...(repetitions ? { repetitions } : {}),
        },
      },
      { idempotencyKey: randomUUID() },
    );
  } catch (err) {
    if (err instanceof ServiceApiError && err.code === 'SUITE_NOT_FOUND') throw new CliError(`Suite not found: ${suite.name}`);
    if (err instanceof ServiceApiError && err.code === 'AGENT_REQUIRED')
      throw new CliError(err.message, 'Name the agent with --agent <endpoint or agent name>, or with agent: in the suite file.');
    throw err;
  }
  println(
    info,
    `${c.bold('Run')} ${created.run_id}: suite ${suite.name} v${suite.version} (${suite.note}), agent ${created.agent_name}, version ${created.agent_version}`,
  );
  await watchRun(io, client, created.run_id, {
    pollMs,
    label: suite.name,
    conversations: conversationCases(suite.definition),
    repetitions: created.config.repetitions,
  });
  const [run, { results }] = await Promise.all([client.runs.get(created.run_id), client.runs.results(created.run_id)]);
  reportRun(io, run, results, minScore, opts.json);
}

export function registerRun(program: Command, io: CliIo): void {
  program
    .command('run')
    .description('run a suite against an agent, show its progress and results; exit 1 if any case fails')
    .argument('<suite>', 'a suite file (.yaml/.yml), pushed first; or the name of a stored suite')
    .option(
      '--agent <endpoint>',
      "the agent: an http(s) endpoint (registered when new) or a registered agent name or id; with --local, a module file[:export] or an endpoint (default: the suite's agent)",
    )
    .option('--agent-version <version>', 'version label of the agent under test, e.g. a commit SHA', 'unversioned')
    .option('--min-score <score>', "also fail when the run's average score is below this (0..1 or a percentage)")
    .option('--local', "run the agent here, not from the service's workers, and upload the results (SDK evaluate())")
    .option('--concurrency <n>', 'cases run at once (default: one at a time)')
    .option('--timeout-ms <ms>', 'time-out of one agent call, 1-300000 ms')
    .option('--repetitions <n>', 'trials per case, 1-100')
    .option('--json', 'print the run and its results as JSON (progress still goes to stderr)')
    .addOption(new Option('--poll-interval <ms>', 'how often the run status is polled').default('1000').hideHelp())
    .addHelpText(
      'after',
      `
Exit code 0 when every case passed (and the average score meets --min-score), 1 otherwise.
Conversation cases (turns:, simulation:) show their progress turn by turn.

Examples:
  agent-eval run suites/weather.yaml --agent http://localhost:8080/agent --agent-version $GIT_SHA
  agent-eval run weather --min-score 0.8
  agent-eval run suites/weather.yaml --local --agent ./agent.ts:answer`,
    )
    .action(action(io, (suite: string, opts: RunOptions) => (opts.local ? runLocal(io, suite, opts) : startManagedRun(io, suite, opts))));
}
