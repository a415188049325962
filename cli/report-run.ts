import type { CaseResultView, RunView } from '../core/model/eval-run.js';
import { colorsFor, printJson, println, type CliIo } from './io.js';
import { score } from './output.js';
import { resultsTable, summaryLine } from './render-run.js';

/** The finished run's verdict: exit code 1 unless every case passed and the average meets --min-score. */
export function reportRun(io: CliIo, run: RunView, results: CaseResultView[], minScore: number | undefined, json: boolean | undefined): void {
  const s = run.summary;
  const problems: string[] = [];
  if (run.status !== 'completed') problems.push(`run ${run.status}${run.error ? `: ${run.error}` : ''}`);
  if (s.failed > 0) problems.push(`${s.failed} of ${s.total_cases} cases failed`);
  if (s.cancelled > 0) problems.push(`${s.cancelled} of ${s.total_cases} cases cancelled`);
  if (minScore !== undefined && s.avg_score < minScore) problems.push(`average score ${score(s.avg_score)} is below --min-score ${score(minScore)}`);
  const passed = problems.length === 0;
  if (!passed) process.exitCode = 1;
  if (json) {
    printJson(io, { passed, problems, min_score: minScore ?? null, run, results });
    return;
  }
  const c = colorsFor(io.stdout, io.env);
  println(io.stdout, resultsTable(c, results));
  println(io.stdout, summaryLine(c, run));
  println(io.stdout, passed ? c.green(c.bold('PASSED')) : `${c.red(c.bold('FAILED'))}: ${problems.join('; ')}`);
}
