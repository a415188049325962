import { readFileSync } from 'node:fs';
import { compileSafeRegex, PatternError, type SafeRegex, type SearchResult } from '../safe-regex.js';

/**
 * One case's searches, as the regex worker runs them (core/safe-regex/worker.ts): every pattern
 * compiled and searched in order over the same text, until the time granted runs out. Pure and
 * synchronous; the pool (core/safe-regex/pool.ts) decides the time and keeps the run's account.
 */

/** The patterns of one case (already checked: suites refuse what RE2 cannot run), their flags and the output. */
export interface SearchJob {
  patterns: readonly string[];
  flags: string;
  text: string;
  /** Milliseconds the searches may take in all; checked before each search (each one is bounded: core/safe-regex.ts). */
  budgetMs: number;
}

export type SearchJobResult =
  /** Every pattern searched, in order. */
  | { kind: 'searched'; results: SearchResult[]; elapsedMs: number }
  /** Pattern `index` does not compile (stored before the check existed): `message` says why, as PatternError does. */
  | { kind: 'invalid'; index: number; message: string; elapsedMs: number }
  /** The time ran out after `searched` patterns: the rest were not searched. */
  | { kind: 'out-of-time'; searched: number; elapsedMs: number };

/** This thread's CPU time in ms from Linux's /proc (utime + stime, in ticks of 10 ms), or undefined where there is none. */
function threadCpuMs(): number | undefined {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ').at(-1)!.split(' ');
    // After "pid (comm) ": state is field 3, utime 14 and stime 15 (proc(5)); USER_HZ is 100.
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What budgets count: the searching thread's CPU time where the system says it (Linux, where
 * the worker also runs at the lowest priority: core/safe-regex/worker.ts), so a busy machine
 * that leaves the worker waiting does not spend a case's budget; wall time elsewhere.
 */
export const searchClock: () => number = threadCpuMs() === undefined ? () => performance.now() : () => threadCpuMs()!;

/** Runs `job` now, on this thread. `clock` is for tests. */
export function runSearchJob(job: SearchJob, clock: () => number = searchClock): SearchJobResult {
  const started = clock();
  const elapsed = () => clock() - started;
  const results: SearchResult[] = [];
  for (let index = 0; index < job.patterns.length; index++) {
    if (elapsed() >= job.budgetMs) return { kind: 'out-of-time', searched: index, elapsedMs: elapsed() };
    let regex: SafeRegex;
    try {
      regex = compileSafeRegex(job.patterns[index], job.flags);
    } catch (err) {
      if (!(err instanceof PatternError)) throw err;
      return { kind: 'invalid', index, message: err.message, elapsedMs: elapsed() };
    }
    results.push(regex.search(job.text));
  }
  return { kind: 'searched', results, elapsedMs: elapsed() };
}
