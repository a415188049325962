import { FINAL_RUN_STATUSES } from '../core/model/eval-run.js';
import type { AgentEvalClient, RunStatusView } from '../sdk/client.js';
import { CliError, println, type CliIo } from './io.js';
import { progressDisplay } from './progress.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls GET /api/runs/{id}/status until the run is final, showing its progress (a bar on a
 * terminal, plain lines otherwise). Ctrl-C stops watching (the bar gives the cursor back); the
 * run goes on in the service.
 */
export async function watchRun(
  io: CliIo,
  client: AgentEvalClient,
  runId: string,
  opts: { pollMs: number; label: string; quiet?: boolean },
): Promise<RunStatusView> {
  const display = opts.quiet ? undefined : progressDisplay(io, opts.label);
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
  };
  process.once('SIGINT', onInterrupt);
  try {
    for (;;) {
      const s = await client.runs.status(runId);
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
