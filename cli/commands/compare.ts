import type { Command } from 'commander';
import type { RunComparison } from '../../core/evals/compare.js';
import { formatThreshold, parseThreshold, ThresholdError } from '../../core/evals/threshold.js';
import type { RunView } from '../../core/model/eval-run.js';
import type { AgentEvalClient } from '../../sdk/client.js';
import { ServiceApiError } from '../../sdk/errors.js';
import { action, connect, orRunNotFound } from '../client.js';
import { CliError, colorsFor, printJson, println, type CliIo, type Colors } from '../io.js';
import { delta, score, short, status, table } from '../output.js';
import { loadSuiteFile, looksLikeFile } from '../suite-file.js';
import { findSuite } from '../suite-push.js';

interface CompareOptions {
  suite?: string;
  failOnRegression?: string;
  json?: boolean;
}

const notEnough = () => new CliError('Not enough runs to compare', 'Comparing needs two completed runs of the suite: run it again, or name both runs.');

/** The newest completed runs of a suite (or of the project), newest first. */
async function latestRuns(client: AgentEvalClient, suiteName: string | undefined, count: number): Promise<RunView[]> {
  return (await client.runs.list({ suite_name: suiteName, status: 'completed', limit: count })).runs;
}

/**
 * The two runs to compare. Both given: those. Only the baseline: the newest other completed run
 * of its suite is the candidate. Neither: the two newest completed runs of `--suite`, else of
 * the suite of the project's newest completed run.
 */
async function pickRuns(
  client: AgentEvalClient,
  baseline: string | undefined,
  candidate: string | undefined,
  suiteName: string | undefined,
): Promise<[string, string]> {
  if (baseline && candidate) return [baseline, candidate];
  if (baseline) {
    const base = await orRunNotFound(baseline, client.runs.get(baseline));
    const newest = (await latestRuns(client, suiteName ?? base.suite_name ?? undefined, 2)).find((r) => r.run_id !== base.run_id);
    if (!newest) throw notEnough();
    return [base.run_id, newest.run_id];
  }
  let name = suiteName;
  if (name === undefined) {
    const [newest] = await latestRuns(client, undefined, 1);
    if (!newest) throw notEnough();
    name = newest.suite_name ?? undefined;
  }
  const runs = await latestRuns(client, name, 2);
  // A suite run only locally has runs but no stored definition: it is known by its runs.
  if (runs.length === 0 && suiteName !== undefined) await findSuite(client, suiteName);
  if (runs.length < 2) throw notEnough();
  return [runs[1].run_id, runs[0].run_id];
}

/** The comparison call: `Run not found: {id}` for either run's 404, else `Failed to compare runs` with the cause. */
async function compareRuns(client: AgentEvalClient, baseline: string, candidate: string, threshold: number | undefined): Promise<RunComparison> {
  if (baseline === candidate) throw new CliError('Failed to compare runs: the baseline and the candidate are the same run');
  try {
    return await client.compare(baseline, candidate, threshold === undefined ? {} : { threshold });
  } catch (err) {
    if (err instanceof ServiceApiError && err.status === 404) {
      const which = (err.body as { error?: string } | undefined)?.error ?? '';
      throw new CliError(`Run not found: ${which.startsWith('Candidate') ? candidate : baseline}`);
    }
    if (err instanceof ServiceApiError && err.status === 401) throw err;
    throw new CliError(`Failed to compare runs: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function render(c: Colors, cmp: RunComparison, gate: number | undefined): string {
  const lines: string[] = [];
  lines.push(`${c.bold('Baseline')}  ${cmp.baseline.run_id} (${cmp.baseline.agent_version})`);
  lines.push(`${c.bold('Candidate')} ${cmp.candidate.run_id} (${cmp.candidate.agent_version})`);
  if (cmp.same_suite_version === false) lines.push(c.yellow('The runs used different suites or suite versions.'));
  if (cmp.cases.length) {
    lines.push(
      table(
        c,
        ['Case', 'Baseline', 'Candidate', 'Delta', 'Status'],
        cmp.cases.map((k) => {
          const d = k.delta < 0 ? c.red(delta(k.delta)) : k.delta > 0 ? c.green(delta(k.delta)) : delta(k.delta);
          const st =
            k.baseline_status === k.candidate_status ? status(c, k.candidate_status) : `${status(c, k.baseline_status)} -> ${status(c, k.candidate_status)}`;
          return [k.case_name, score(k.baseline_score), score(k.candidate_score), d, st];
        }),
      ),
    );
  }
  const changes = (title: string, list: RunComparison['regressions'], paint: (s: string) => string) => {
    if (!list.length) return;
    lines.push(paint(`${title} (${list.length}):`));
    for (const r of list)
      lines.push(`  ${short(r.case_name, 50)} / ${r.scorer}: ${score(r.baseline_score)} -> ${score(r.candidate_score)} (${delta(r.delta)})`);
  };
  changes('Regressions', cmp.regressions, c.red);
  changes('Improvements', cmp.improvements, c.green);
  for (const [title, names] of [
    ['Only in baseline', cmp.only_in_baseline],
    ['Only in candidate', cmp.only_in_candidate],
  ] as const) {
    if (names.length) lines.push(c.yellow(`${title}: ${names.map((n) => short(n, 40)).join(', ')}`));
  }
  lines.push(`Overall delta ${delta(cmp.overall_delta)}; ${cmp.unchanged_count} scores unchanged within ${formatThreshold(cmp.threshold)}`);
  if (cmp.significance?.note) lines.push(c.dim(`Significance: ${cmp.significance.note}`));
  if (gate !== undefined) {
    lines.push(
      cmp.passed
        ? c.green(c.bold('PASSED'))
        : `${c.red(c.bold('FAILED'))}: ${cmp.regressions.length} regression${cmp.regressions.length === 1 ? '' : 's'} beyond ${formatThreshold(gate)}`,
    );
  }
  return lines.join('\n');
}

async function compare(io: CliIo, baseline: string | undefined, candidate: string | undefined, opts: CompareOptions): Promise<void> {
  let gate: number | undefined;
  if (opts.failOnRegression !== undefined) {
    try {
      gate = parseThreshold(opts.failOnRegression);
    } catch (err) {
      if (err instanceof ThresholdError) throw new CliError(err.message, 'Give a fraction (0.05) or a percentage (5%), more than 0 and at most 100%.');
      throw err;
    }
  }
  const suiteName = opts.suite === undefined ? undefined : looksLikeFile(opts.suite) ? (await loadSuiteFile(opts.suite)).definition.name : opts.suite;
  const client = connect(io);
  const [b, c] = await pickRuns(client, baseline, candidate, suiteName);
  const cmp = await compareRuns(client, b, c, gate);
  if (gate !== undefined && !cmp.passed) process.exitCode = 1;
  if (opts.json) return printJson(io, cmp);
  println(io.stdout, render(colorsFor(io.stdout, io.env), cmp, gate));
}

export function registerCompare(program: Command, io: CliIo): void {
  program
    .command('compare')
    .description('compare two runs case by case: regressions, improvements, significance')
    .argument('[baseline]', 'the baseline run id (default: the second newest completed run of the suite)')
    .argument('[candidate]', 'the candidate run id (default: the newest completed run of the suite)')
    .option('--suite <name or file>', 'the suite whose latest runs are compared (default: the suite of the newest completed run)')
    .option('--fail-on-regression <threshold>', 'exit 1 when a scorer drops by more than this: a fraction (0.05) or a percentage (5%)')
    .option('--json', 'print the comparison as JSON')
    .addHelpText(
      'after',
      `
Without --fail-on-regression the comparison is printed (regressions beyond the service's
default of 5%) and the exit code is 0.

Examples:
  agent-eval compare --suite weather --fail-on-regression 5%
  agent-eval compare 3dacd577-... bc707f75-... --json`,
    )
    .action(action(io, (baseline: string | undefined, candidate: string | undefined, opts: CompareOptions) => compare(io, baseline, candidate, opts)));
}
