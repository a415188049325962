import { FINAL_RUN_STATUSES, type CaseResultView } from '../core/model/eval-run.js';
import type { AgentEvalClient, RunStatusView } from '../sdk/client.js';
import { CliError, println, type CliIo } from './io.js';
import { progressDisplay, turnLineOf, type ProgressDisplay, type TurnLine } from './progress.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A conversation case of the run, by case index: how many turns it may have. */
export type ConversationCases = Map<number, Pick<TurnLine, 'of' | 'kind'>>;

/** Shows each turn of the run's conversation cases once, as the results show them (recorded trials' turns, and those of trials under way). */
function turnWatcher(display: ProgressDisplay, conversations: ConversationCases, trials: number) {
  const shown = new Set<string>();
  return (results: CaseResultView[]) => {
    for (const r of results) {
      const shape = conversations.get(r.case_index);
      if (!shape) continue;
      const lists = [...r.trials.map((t) => ({ trial: t.trial, turns: t.turns ?? [] })), ...(r.running ?? [])].sort((a, b) => a.trial - b.trial);
      for (const { trial, turns } of lists) {
        for (const t of turns) {
          const key = `${r.case_index}:${trial}:${t.turn}`;
          if (shown.has(key)) continue;
          shown.add(key);
          display.turn(turnLineOf({ caseName: r.case_name, trial, trials, ...shape }, t));
        }
      }
    }
  };
}

/**
 * Polls GET /api/runs/{id}/status until the run is final, showing its progress (a bar on a
 * terminal, plain lines otherwise). A run with conversation cases (`conversations`) also has its
 * results polled, and each turn shows once it is scored. Ctrl-C stops watching (the bar gives the
 * cursor back); the run goes on in the service.
 */
export async function watchRun(
  io: CliIo,
  client: AgentEvalClient,
  runId: string,
  opts: { pollMs: number; label: string; quiet?: boolean; conversations?: ConversationCases; repetitions?: number },
): Promise<RunStatusView> {
  const display = opts.quiet ? undefined : progressDisplay(io, opts.label);
  const turns = display && opts.conversations?.size ? turnWatcher(display, opts.conversations, opts.repetitions ?? 1) : undefined;
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
  };
  process.once('SIGINT', onInterrupt);
  try {
    for (;;) {
      const s = await client.runs.status(runId);
      if (turns) turns((await client.runs.results(runId)).results);
      display?.update({ status: s.status, completed: s.progress.completed, total: s.progress.total, passed: s.summary.passed, failed: s.summary.failed });
      if (FINAL_RUN_STATUSES.has(s.status)) return s;
      for (let waited = 0; waited < opts.pollMs && !interrupted; waited += 100) await sleep(Math.min(100, opts.pollMs - waited));
      if (interrupted) {
        display?.stop();
        println(io.stderr);
        throw new CliError(
          `Stopped watching run ${runId}; it goes on in the service.`,
          `agent-eval runs show ${runId} shows where it is; agent-eval runs cancel ${runId} stops it.`,
        );
      }
    }
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    display?.stop();
  }
}
