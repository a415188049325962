import type { CaseResultView, RunView } from '../core/model/eval-run.js';
import type { Colors } from './io.js';
import { duration, fields, score, short, status, table, time } from './output.js';

/** How runs and their results read on a terminal (`run`, `runs show`, `runs results`). */

/** The results table: one row per case, its scorers' scores, and why a failed case failed. */
export function resultsTable(c: Colors, results: CaseResultView[]): string {
  const rows = results.map((r) => {
    const scorers = Object.entries(r.scores)
      .map(([name, value]) => `${name} ${score(value)}`)
      .join('\n');
    return [
      r.case_name,
      status(c, r.status),
      score(r.status === 'passed' || r.status === 'failed' ? r.avg_score : null),
      scorers || '-',
      duration(r.duration_ms),
      [conversationNote(r), failureReason(r)].filter(Boolean).join('; '),
    ];
  });
  return table(c, ['Case', 'Status', 'Score', 'Scorers', 'Duration', 'Notes'], rows, { ruled: true });
}

/** A conversation case's turns and how it ended (its first trial's): `4 turns, goal_met`. */
function conversationNote(r: CaseResultView): string {
  const trial = r.trials.find((t) => t.conversation !== undefined);
  if (!trial) return '';
  const turns = trial.conversation?.turns_done ?? trial.turns?.length ?? 0;
  return `${turns} turn${turns === 1 ? '' : 's'}, ${trial.conversation?.ended ?? 'did not end'}`;
}

/**
 * Why a case did not pass: the agent's error, else the reasons of its scorers below 1 (shorter
 * than the case's `error`, which names the scorer under its minimum in a sentence).
 */
function failureReason(r: CaseResultView): string {
  if (r.status === 'passed') return '';
  const agentError = r.trials.find((t) => t.error)?.error;
  if (agentError) return short(agentError, 60);
  // A conversation whose end scores passed fell short on a turn: the case's error says which.
  if (r.error && r.trials.some((t) => t.turns)) return short(r.error, 60);
  const low = Object.entries(r.details)
    .filter(([, d]) => d.score < 1)
    .map(([name, d]) => `${name}: ${d.reason}`);
  return short(low.join('; '), 60);
}

/** `3 cases: 2 passed, 1 failed; average score 0.83` with the counts coloured. */
export function summaryLine(c: Colors, run: RunView): string {
  const s = run.summary;
  const parts = [c.green(`${s.passed} passed`), s.failed ? c.red(`${s.failed} failed`) : `${s.failed} failed`];
  if (s.cancelled) parts.push(c.yellow(`${s.cancelled} cancelled`));
  const pending = s.total_cases - s.passed - s.failed - s.cancelled;
  if (pending > 0) parts.push(`${pending} pending`);
  return `${s.total_cases} cases: ${parts.join(', ')}; average score ${score(s.avg_score)} in ${duration(s.duration_ms)}`;
}

/** The run's fields, as `runs show` prints them. */
export function runDetails(c: Colors, run: RunView): string {
  const s = run.summary;
  const entries: Array<[string, string]> = [
    ['Run', run.run_id],
    ['Status', status(c, run.status)],
    ['Suite', run.suite_name ? `${run.suite_name}${run.suite_version ? ` v${run.suite_version}` : ''}` : (run.name ?? '-')],
    ['Agent', `${run.agent_name}${run.agent_id ? ` (${run.agent_id})` : ''}`],
    ['Agent version', run.agent_version],
    ['Execution', run.execution ?? 'managed'],
    // Cancelled trials are recorded too: the trials that ran, then those cancelled.
    [
      'Progress',
      `${run.progress.completed - (run.progress.cancelled ?? 0)}/${run.progress.total}${run.progress.cancelled ? ` (${run.progress.cancelled} cancelled)` : ''}`,
    ],
    ['Cases', `${s.total_cases} (${s.passed} passed, ${s.failed} failed, ${s.cancelled} cancelled)`],
    ['Average score', `${score(s.avg_score)} (min score ${score(run.min_score)}, ${run.aggregation})`],
    ['Created', time(run.created_at)],
    ['Started', time(run.started_at)],
    ['Completed', time(run.completed_at)],
    ['Duration', duration(s.duration_ms)],
  ];
  if (run.error) entries.push(['Error', c.red(run.error)]);
  const scorers = Object.entries(s.scores_by_scorer);
  const lines = [fields(c, entries)];
  if (scorers.length)
    lines.push(
      '',
      table(
        c,
        ['Scorer', 'Average'],
        scorers.map(([name, v]) => [name, score(v)]),
      ),
    );
  return lines.join('\n');
}

/** The runs list. */
export function runsTable(c: Colors, runs: RunView[]): string {
  return table(
    c,
    ['Run', 'Suite', 'Agent', 'Version', 'Status', 'Passed', 'Score', 'Created'],
    runs.map((r) => [
      r.run_id,
      r.suite_name ? `${r.suite_name}${r.suite_version ? ` v${r.suite_version}` : ''}` : (r.name ?? '-'),
      r.agent_name,
      r.agent_version,
      status(c, r.status),
      `${r.summary.passed}/${r.summary.total_cases}`,
      score(r.summary.avg_score),
      time(r.created_at),
    ]),
  );
}
