import cliProgress from 'cli-progress';
import type { TurnResult } from '../core/model/eval-run.js';
import { println, type CliIo } from './io.js';

/** One poll of a run's status, as the progress display needs it. */
export interface ProgressState {
  status: string;
  completed: number;
  total: number;
  passed: number;
  failed: number;
}

/** One turn of a conversation case, scored. */
export interface TurnLine {
  caseName: string;
  /** 0-based; shown when the run repeats cases. */
  trial: number;
  trials: number;
  turn: number;
  /** A script's turns, or a simulated user's max_turns. */
  of: number;
  kind: 'scripted' | 'simulated';
  /** `answered`: the turn has no scorers. */
  status: 'passed' | 'failed' | 'answered' | 'error';
  /** The agent's error, or why the turn's scores fell short. */
  note?: string;
}

/** A recorded turn as a progress line. */
export function turnLineOf(c: Omit<TurnLine, 'turn' | 'status' | 'note'>, t: TurnResult): TurnLine {
  if (t.error !== null) return { ...c, turn: t.turn, status: 'error', note: t.error };
  if (t.passed) return { ...c, turn: t.turn, status: t.avg_score === null ? 'answered' : 'passed' };
  const low = Object.entries(t.details)
    .filter(([, d]) => d.score < 1)
    .map(([name, d]) => `${name} ${Math.round(d.score * 100) / 100}${d.reason ? ` (${d.reason})` : ''}`);
  return { ...c, turn: t.turn, status: 'failed', ...(low.length ? { note: low.join('; ') } : {}) };
}

/** `refund: turn 2/8 max passed`, `billing: turn 3/3 failed: scorer 'contains' scored 0...`. */
export function turnLineText(t: TurnLine): string {
  const trial = t.trials > 1 ? ` (trial ${t.trial + 1})` : '';
  const of = t.kind === 'simulated' ? `${t.turn}/${t.of} max` : `${t.turn}/${t.of}`;
  const note = t.note ? `: ${t.note.length > 120 ? `${t.note.slice(0, 119)}…` : t.note}` : '';
  return `${t.caseName}${trial}: turn ${of} ${t.status}${note}`;
}

export interface ProgressDisplay {
  update(state: ProgressState): void;
  /** A conversation's turn: a line of its own (CI logs), or the bar's last-turn field on a terminal. */
  turn(line: TurnLine): void;
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
      format: `${label} [{bar}] {value}/{total} cases | {percentage}% | {status} | {passed} passed, {failed} failed | {duration_formatted}{turn}`,
      barsize: 30,
      hideCursor: true,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let turn = '';
  return {
    update(s) {
      const payload = { status: s.status, passed: s.passed, failed: s.failed, turn };
      if (!started) {
        bar.start(Math.max(s.total, 1), s.completed, payload);
        started = true;
      } else {
        bar.setTotal(Math.max(s.total, 1));
        bar.update(s.completed, payload);
      }
    },
    turn(line) {
      turn = ` | ${turnLineText(line)}`;
      if (started) bar.update({ turn });
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
    turn(t) {
      println(io.stderr, `${label}: ${turnLineText(t)}`);
    },
    stop() {},
  };
}
