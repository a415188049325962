import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { isUuid } from '../../core/model/agent.js';
import {
  CASE_FIELDS,
  EXPORT_FORMATS,
  IMPORT_FORMATS,
  type CaseField,
  type CasesAdded,
  type ExportFormat,
  type ImportFormat,
} from '../../core/model/dataset.js';
import type { AgentEvalClient } from '../../sdk/client.js';
import { action, connect } from '../client.js';
import { CliError, colorsFor, printJson, println, type CliIo } from '../io.js';
import { intOption } from '../options.js';
import { short, table } from '../output.js';
import { findSuite } from '../suite-push.js';

/**
 * `agent-eval suites add-trace | import | export` (docs/cli.md "Datasets from production"): a
 * suite's cases from production traces and from CSV / JSONL files, and a version as a file. Each
 * addition is a new version on the service (POST /api/suites/{id}/cases/...).
 */

const collect = (value: string, previous: string[] = []) => [...previous, value];

async function suiteIdOf(client: AgentEvalClient, nameOrId: string): Promise<string> {
  return isUuid(nameOrId) ? nameOrId : (await findSuite(client, nameOrId)).id;
}

/** `key=value` pairs (the trace filters, the column mapping), each named by its option. */
function pairs(option: string, values: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const at = v.indexOf('=');
    if (at <= 0) throw new CliError(`${option} takes key=value: ${v}`);
    out[v.slice(0, at)] = v.slice(at + 1);
  }
  return out;
}

function list(option: string, value: string | undefined, allowed?: readonly string[]): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = allowed && items.find((i) => !allowed.includes(i));
  if (bad) throw new CliError(`${option}: '${bad}' is not one of ${allowed.join(', ')}`);
  return items;
}

interface AddTraceOptions {
  span?: string;
  session?: string;
  filter?: string[];
  cap?: string;
  preview?: boolean;
  fields?: string;
  expectedOutput: boolean;
  attributes?: string;
  caseName?: string;
  json?: boolean;
}

function printCases(io: CliIo, added: Pick<CasesAdded, 'suite' | 'cases'>): void {
  const c = colorsFor(io.stdout, io.env);
  const head = added.suite
    ? `${c.green('Added')} ${added.cases.length} cases: suite ${added.suite.name} version ${added.suite.version}`
    : `${c.yellow('Preview')}: ${added.cases.length} cases (nothing written)`;
  println(io.stdout, head);
  if (added.cases.length)
    println(
      io.stdout,
      table(
        c,
        ['Case', 'Input', 'Source'],
        added.cases.map((k) => [k.name, short(k.input ?? k.turns?.[0]?.input, 50), k.source?.span_id ?? k.source?.trace_id ?? '-']),
      ),
    );
}

async function addTrace(io: CliIo, suite: string, traceIds: string[], opts: AddTraceOptions): Promise<void> {
  const filter = opts.filter?.length ? pairs('--filter', opts.filter) : undefined;
  const ways = [traceIds.length > 0, opts.span !== undefined, opts.session !== undefined, filter !== undefined].filter(Boolean).length;
  if (ways !== 1) throw new CliError('give trace ids, or one of --span, --session or --filter');
  const client = connect(io);
  const added = await client.suites.addFromTraces(await suiteIdOf(client, suite), {
    ...(traceIds.length ? { trace_ids: traceIds } : {}),
    span_id: opts.span,
    session_id: opts.session,
    filter,
    cap: intOption('--cap', opts.cap, 1, 1000),
    preview: opts.preview ?? false,
    fields: list('--fields', opts.fields, CASE_FIELDS) as CaseField[] | undefined,
    expected_from_output: opts.expectedOutput,
    attributes: list('--attributes', opts.attributes),
    case_name: opts.caseName,
  });
  if (opts.json) return printJson(io, added);
  printCases(io, added);
  if (added.truncated) println(io.stderr, colorsFor(io.stderr, io.env).yellow('More traces matched the filter than --cap: the newest were taken'));
}

interface ImportOptions {
  format?: string;
  map?: string[];
  jsonColumns?: string;
  strict?: boolean;
  preview?: boolean;
  json?: boolean;
}

async function importFile(io: CliIo, suite: string, file: string, opts: ImportOptions): Promise<void> {
  const format = (opts.format ?? path.extname(file).slice(1).toLowerCase()) as ImportFormat;
  if (!IMPORT_FORMATS.includes(format)) throw new CliError(`--format must be csv or jsonl (the file's extension is not): ${file}`);
  const content = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read ${file}: ${err.code ?? err.message}`);
  });
  const client = connect(io);
  const imported = await client.suites.importCases(await suiteIdOf(client, suite), {
    format,
    content,
    mapping: opts.map?.length ? pairs('--map', opts.map) : undefined,
    json_columns: list('--json-columns', opts.jsonColumns),
    strict: opts.strict ?? false,
    preview: opts.preview ?? false,
  });
  if (opts.json) return printJson(io, imported);
  printCases(io, imported);
  if (imported.errors.length) {
    const c = colorsFor(io.stderr, io.env);
    println(io.stderr, c.red(`${imported.errors.length} rows not imported:`));
    println(
      io.stderr,
      table(
        c,
        ['Row', 'Line', 'Field', 'Problem'],
        imported.errors.map((e) => [e.row, e.line, e.field, short(e.message, 80)]),
      ),
    );
  }
}

async function exportVersion(io: CliIo, suite: string, opts: { suiteVersion?: string; format: string; output?: string }): Promise<void> {
  if (!EXPORT_FORMATS.includes(opts.format as ExportFormat)) throw new CliError(`--format must be one of ${EXPORT_FORMATS.join(', ')}: ${opts.format}`);
  const client = connect(io);
  const id = await suiteIdOf(client, suite);
  const version = intOption('--suite-version', opts.suiteVersion, 1, 2_147_483_647) ?? (await client.suites.get(id)).version;
  const text = await client.suites.exportVersion(id, version, opts.format as ExportFormat);
  if (opts.output) await fs.writeFile(opts.output, text);
  else io.stdout.write(text);
}

/** The datasets commands, under `agent-eval suites`. */
export function registerSuiteCases(suites: Command, io: CliIo): void {
  suites
    .command('add-trace')
    .description('add production traces, a span, a session or a filtered batch of traces to a suite as cases (a new version)')
    .argument('<suite>', 'the suite, by name or id')
    .argument('[trace-ids...]', 'traces to add, each a case')
    .option('--span <id>', 'add this span (its input and output) as a case')
    .option('--session <id>', "add this session's traces as one scripted conversation")
    .option('--filter <key=value>', 'add the traces this GET /api/traces filter selects (repeatable: name=..., status=error, tag=...)', collect)
    .option('--cap <n>', 'most traces a --filter adds, 1-1000 (default 100)')
    .option('--preview', 'show the cases without writing a version')
    .option('--fields <list>', `what a case takes: ${CASE_FIELDS.join(',')} (default input,output)`)
    .option('--no-expected-output', "keep the output in the case's metadata instead of expecting it")
    .option('--attributes <keys>', 'span attributes kept in the metadata (with --fields metadata)')
    .option('--case-name <name>', 'the name of the one case added')
    .option('--json', 'print the answer as JSON')
    .action(action(io, (suite: string, ids: string[], opts: AddTraceOptions) => addTrace(io, suite, ids, opts)));

  suites
    .command('import')
    .description('import cases from a CSV or JSONL file (a new version); rows that are not cases are listed')
    .argument('<suite>', 'the suite, by name or id')
    .argument('<file>', 'a .csv or .jsonl file')
    .option('--format <csv|jsonl>', "the file's format (default: from its extension)")
    .option('--map <field=column>', 'read a case field from a column (repeatable: input=question, expected.output=answer)', collect)
    .option('--json-columns <list>', 'CSV columns holding JSON')
    .option('--strict', 'refuse the whole file when a row is bad')
    .option('--preview', 'check the rows without writing a version')
    .option('--json', 'print the answer as JSON')
    .action(action(io, (suite: string, file: string, opts: ImportOptions) => importFile(io, suite, file, opts)));

  suites
    .command('export')
    .description('a suite version as a JSONL, CSV or YAML file')
    .argument('<suite>', 'the suite, by name or id')
    .option('--suite-version <n>', 'the version (default: the latest)')
    .option('--format <format>', EXPORT_FORMATS.join(', '), 'jsonl')
    .option('-o, --output <file>', 'write to this file instead of standard output')
    .action(action(io, (suite: string, opts: { suiteVersion?: string; format: string; output?: string }) => exportVersion(io, suite, opts)));
}
