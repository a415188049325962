import type { Command } from 'commander';
import { isUuid } from '../../core/model/agent.js';
import type { EvalCase } from '../../core/model/case-schema.js';
import { suiteYaml } from '../../core/model/suite-yaml.js';
import { action, connect, isNotFound } from '../client.js';
import { CliError, colorsFor, printJson, println, printListing, type CliIo } from '../io.js';
import { intOption } from '../options.js';
import { fields, short, table, time } from '../output.js';
import { loadSuiteFile } from '../suite-file.js';
import { findSuite, pushSuite } from '../suite-push.js';
import { registerSuiteCases } from './suite-cases.js';

async function push(io: CliIo, file: string, opts: { json?: boolean }): Promise<void> {
  const { definition } = await loadSuiteFile(file);
  const client = connect(io);
  const { suite, outcome } = await pushSuite(client, definition);
  if (opts.json) return printJson(io, { ...suite, outcome });
  const c = colorsFor(io.stdout, io.env);
  const what = { created: 'Created', updated: 'Updated', unchanged: 'Unchanged' }[outcome];
  println(io.stdout, `${c.green(what)} suite ${suite.name} (version ${suite.version}, ${suite.case_count} cases, id ${suite.id})`);
}

async function validate(io: CliIo, file: string, opts: { json?: boolean }): Promise<void> {
  const { definition } = await loadSuiteFile(file);
  if (opts.json) return printJson(io, definition);
  println(io.stdout, `${colorsFor(io.stdout, io.env).green('Valid')} suite ${definition.name} (${definition.cases.length} cases)`);
}

async function list(io: CliIo, opts: { name?: string; limit: string; json?: boolean }): Promise<void> {
  const limit = intOption('--limit', opts.limit, 1, 1000);
  const client = connect(io);
  const page = await client.suites.list({ name: opts.name, limit });
  printListing(io, opts, {
    answer: page,
    items: page.suites,
    noun: 'suites',
    total: page.total,
    table: (c, suites) =>
      table(
        c,
        ['Name', 'Version', 'Cases', 'Description', 'Updated', 'Id'],
        suites.map((s) => [s.name, s.version, s.case_count, short(s.description ?? '', 40), time(s.updated_at), s.id]),
      ),
  });
}

/** What a case sends: its input, its scripted turns, or its simulated user. */
function caseInput(c: EvalCase): string {
  if (c.turns) return `${c.turns.length} turn${c.turns.length === 1 ? '' : 's'}: ${short(c.turns[0].input, 36)}`;
  if (c.simulation) return `simulated user, max ${c.simulation.max_turns} turns: ${short(c.simulation.goal, 28)}`;
  return short(c.input, 50);
}

async function show(io: CliIo, nameOrId: string, opts: { suiteVersion?: string; json?: boolean; yaml?: boolean }): Promise<void> {
  const version = intOption('--suite-version', opts.suiteVersion, 1, 2_147_483_647);
  const client = connect(io);
  let id = nameOrId;
  if (!isUuid(nameOrId)) id = (await findSuite(client, nameOrId)).id;
  let suite;
  try {
    suite = await client.suites.get(id, { version });
  } catch (err) {
    if (isNotFound(err)) throw new CliError(`Suite not found: ${nameOrId}${version ? ` version ${version}` : ''}`);
    throw err;
  }
  if (opts.json) return printJson(io, suite);
  // A suite file of this version: `suites push` reads it back to the same definition.
  if (opts.yaml) return void io.stdout.write(suiteYaml(suite.definition));
  const c = colorsFor(io.stdout, io.env);
  const def = suite.definition;
  println(
    io.stdout,
    fields(c, [
      ['Suite', suite.name],
      ['Id', suite.id],
      ['Version', `${suite.version} of ${suite.latest_version}`],
      ['Description', def.description ?? '-'],
      ['Agent', def.agent_id ?? '-'],
      ['Scorers', def.defaultScorers.map((s) => s.name).join(', ') || '-'],
      ['Min score', String(def.defaultMinScore)],
      ['Aggregation', def.aggregation],
      ['Updated', time(suite.version_created_at)],
    ]),
  );
  println(
    io.stdout,
    table(
      c,
      ['Case', 'Input', 'Scorers'],
      def.cases.map((k) => [k.name, caseInput(k), (k.scorers ?? def.defaultScorers).map((s) => s.name).join(', ')]),
    ),
  );
}

export function registerSuites(program: Command, io: CliIo): void {
  const suites = program.command('suites').description('push, check and list test suites');

  suites
    .command('push')
    .description('create the suite of a YAML file, or add a version when it changed')
    .argument('<file>', 'a suite file (.yaml/.yml)')
    .option('--json', 'print the suite summary as JSON')
    .action(action(io, (file: string, opts: { json?: boolean }) => push(io, file, opts)));

  suites
    .command('validate')
    .description("check a suite file with the service's parser and schema, without sending it")
    .argument('<file>', 'a suite file (.yaml/.yml)')
    .option('--json', 'print the checked definition (defaults filled in) as JSON')
    .action(action(io, (file: string, opts: { json?: boolean }) => validate(io, file, opts)));

  suites
    .command('list', { isDefault: true })
    .description("the project's suites, newest first")
    .option('--name <text>', 'only suites whose name contains this')
    .option('--limit <n>', 'most suites to show, 1-1000', '50')
    .option('--json', 'print the answer as JSON')
    .action(action(io, (opts: { name?: string; limit: string; json?: boolean }) => list(io, opts)));

  suites
    .command('show')
    .description("a suite's definition (latest version, or --suite-version)")
    .argument('<name or id>')
    .option('--suite-version <n>', 'a version of the suite (default: the latest)')
    .option('--json', 'print the suite as JSON')
    .option('--yaml', 'print the definition as a suite file (what suites push reads)')
    .action(action(io, (name: string, opts: { suiteVersion?: string; json?: boolean; yaml?: boolean }) => show(io, name, opts)));

  registerSuiteCases(suites, io);
}
