import cliProgress from 'cli-progress';
import { println, type CliIo } from './io.js';

/** One poll of a run's status, as the progress display needs it. */
export interface ProgressState {
  status: string;
  completed: number;
  total: number;
  passed: number;
  failed: number;
}

export interface ProgressDisplay {
  update(state: ProgressState): void;
  /** Leaves the last state on screen. */
  stop(): void;
}

/**
 * Progress of a run on stderr (stdout keeps the results, for pipes): a cli-progress bar on a
 * terminal, else one plain line per change, which reads well in a CI log.
 */
export function progressDisplay(io: CliIo, label: string): ProgressDisplay {
  return io.stderr.isTTY && io.env.TERM !== 'dumb' ? barDisplay(io, label) : lineDisplay(io, label);
}

function barDisplay(io: CliIo, label: string): ProgressDisplay {
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr,
      format: `${label} [{bar}] {value}/{total} cases | {percentage}% | {status} | {passed} passed, {failed} failed | {duration_formatted}`,
      barsize: 30,
      hideCursor: true,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(s) {
      const payload = { status: s.status, passed: s.passed, failed: s.failed };
      if (!started) {
        bar.start(Math.max(s.total, 1), s.completed, payload);
        started = true;
      } else {
        bar.setTotal(Math.max(s.total, 1));
        bar.update(s.completed, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

function lineDisplay(io: CliIo, label: string): ProgressDisplay {
  let last = '';
  return {
    update(s) {
      const line = `${label}: ${s.completed}/${s.total} cases, ${s.status} (${s.passed} passed, ${s.failed} failed)`;
      if (line !== last) println(io.stderr, line);
      last = line;
    },
    stop() {},
  };
}
