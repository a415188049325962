import os from 'node:os';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { RUNNING_FROM_SOURCES, siblingModule } from '../os/package-files.js';
import type { SearchResult } from '../safe-regex.js';
import type { SearchJob, SearchJobResult } from './search.js';
import type { JobMessage, ReplyMessage } from './worker.js';

/**
 * The regex pool: user patterns are searched on worker threads, never on the event loop the
 * API, the collector and the scorers share (issue 26: 30 `(a+)+b` patterns scored on the loop
 * held /api/health for up to 227 ms even on RE2). One job is one case's patterns over one
 * output; each worker runs one job at a time (at the lowest CPU priority on Linux), queued jobs
 * wait in order. Every job has a time budget (REGEX_CASE_BUDGET_MS), and the jobs of one eval
 * run share a second one (REGEX_RUN_BUDGET_MS, counted in this process): searches stop when it
 * runs out and the scorer says so, instead of holding a worker for hours. Workers start on demand and end after
 * IDLE_MS without work; an idle worker does not keep the process alive.
 */

/** Search time one case's patterns may take in all (ms): dozens of the slowest searches (~100-200 ms each, core/safe-regex.ts), thousands of ordinary ones. Search time is the worker's CPU time on Linux (core/safe-regex/search.ts). */
export const REGEX_CASE_BUDGET_MS = 5_000;
/** Search time the cases of one eval run may take in all, in one process (ms). */
export const REGEX_RUN_BUDGET_MS = 300_000;
/** Worker threads at most: one per core but one (left to the event loop), between 1 and 4. */
export const REGEX_WORKERS = Math.max(1, Math.min(4, os.availableParallelism() - 1));
/** A worker without a job for this long ends (ms). */
const IDLE_MS = 30_000;
/** Runs whose search time is remembered (the least recently charged are forgotten first). */
const RUNS_KEPT = 10_000;

/** One case's patterns (already checked when they entered), their flags and the output they search. */
export interface PatternSearch {
  patterns: readonly string[];
  flags: string;
  text: string;
}

export interface PatternSearchOptions {
  /** The eval run the case belongs to: its cases share REGEX_RUN_BUDGET_MS. Absent: the case's budget only. */
  runId?: string;
  /** Aborted while the job waits: it is dropped and the promise rejects with the reason. */
  signal?: AbortSignal;
}

export type PatternSearchOutcome =
  /** Every pattern searched: `results[i]` is pattern i's. */
  | { kind: 'searched'; results: SearchResult[] }
  /** Pattern `index` does not compile; `message` says why (a PatternError's message). */
  | { kind: 'invalid'; index: number; message: string }
  /** A budget ran out before every pattern was searched; `reason` says which and how far it got. */
  | { kind: 'over-budget'; reason: string };

export interface RegexPoolOptions {
  workers?: number;
  caseBudgetMs?: number;
  runBudgetMs?: number;
  idleMs?: number;
}

export interface RegexPoolStats {
  /** Worker threads alive. */
  workers: number;
  /** Jobs being searched now. */
  running: number;
  /** Jobs waiting for a worker. */
  queued: number;
  /** Jobs answered since the pool was made. */
  completed: number;
}

export interface RegexPool {
  search(search: PatternSearch, options?: PatternSearchOptions): Promise<PatternSearchOutcome>;
  stats(): RegexPoolStats;
  /** Ends every worker; waiting jobs reject. */
  close(): Promise<void>;
}

interface Waiting {
  search: PatternSearch;
  runId?: string;
  signal?: AbortSignal;
  onAbort?: () => void;
  resolve(outcome: PatternSearchOutcome): void;
  reject(err: unknown): void;
}

interface Slot {
  worker: Worker;
  job?: { id: number; waiting: Waiting; budgetMs: number };
  idle?: NodeJS.Timeout;
  /** Why the worker failed, when it did. */
  failure?: Error;
}

/**
 * How a worker starts: with its code next to this module, JavaScript when this module runs from
 * dist/ (the SDK as published), TypeScript when it runs from the sources (tsx, vitest). From the
 * sources the thread needs tsx's loader first: a thread does not inherit one registered in code
 * (bin/agent-eval.js, vitest), and tsx's `--import` entry registers nothing in a worker thread
 * (tried on Node 20: "Unknown file extension .ts"), so a two-line boot registers tsx's API, then
 * imports the worker.
 */
function workerStart(): { entry: string | URL; options: WorkerOptions } {
  const worker = siblingModule(import.meta.url, 'worker');
  if (!RUNNING_FROM_SOURCES) return { entry: worker, options: {} };
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker.href)}); });`;
  return { entry: boot, options: { eval: true } };
}

/** What an aborted signal rejects with: its reason, as an Error. */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

export function createRegexPool(options: RegexPoolOptions = {}): RegexPool {
  const maxWorkers = Math.max(1, options.workers ?? REGEX_WORKERS);
  const caseBudgetMs = options.caseBudgetMs ?? REGEX_CASE_BUDGET_MS;
  const runBudgetMs = options.runBudgetMs ?? REGEX_RUN_BUDGET_MS;
  const idleMs = options.idleMs ?? IDLE_MS;
  const slots: Slot[] = [];
  const queue: Waiting[] = [];
  /** Search time spent per run (ms), least recently charged first. */
  const runSpent = new Map<string, number>();
  let nextId = 1;
  let completed = 0;
  let closed = false;

  function charge(runId: string | undefined, ms: number): void {
    if (runId === undefined) return;
    const spent = (runSpent.get(runId) ?? 0) + ms;
    runSpent.delete(runId);
    runSpent.set(runId, spent);
    if (runSpent.size > RUNS_KEPT) runSpent.delete(runSpent.keys().next().value!);
  }

  function runExhausted(searched: number, total: number): PatternSearchOutcome {
    return {
      kind: 'over-budget',
      reason: `regex budget exhausted: the cases of a run may search for ${seconds(runBudgetMs)} in all in one process (docs/scorers.md); ${searched} of this case's ${total} patterns were searched`,
    };
  }

  function outcomeOf(result: SearchJobResult, budgetMs: number, total: number): PatternSearchOutcome {
    switch (result.kind) {
      case 'searched':
        return { kind: 'searched', results: result.results };
      case 'invalid':
        return { kind: 'invalid', index: result.index, message: result.message };
      case 'out-of-time':
        if (budgetMs < caseBudgetMs) return runExhausted(result.searched, total);
        return {
          kind: 'over-budget',
          reason: `regex budget exhausted: a case's patterns may search for ${seconds(caseBudgetMs)} in all (docs/scorers.md); ${result.searched} of its ${total} patterns were searched`,
        };
    }
  }

  function spawn(): Slot {
    const { entry, options: workerOptions } = workerStart();
    const slot: Slot = { worker: new Worker(entry, workerOptions) };
    slot.worker.on('message', (reply: ReplyMessage) => finish(slot, reply));
    slot.worker.on('error', (err: unknown) => {
      slot.failure = err instanceof Error ? err : new Error(String(err));
    });
    slot.worker.on('exit', (code) => {
      const at = slots.indexOf(slot);
      if (at >= 0) slots.splice(at, 1);
      clearTimeout(slot.idle);
      const job = slot.job;
      slot.job = undefined;
      if (job) job.waiting.reject(new Error(`the regex worker stopped: ${slot.failure?.message ?? `exit code ${code}`}`, { cause: slot.failure }));
      pump();
    });
    slots.push(slot);
    return slot;
  }

  function finish(slot: Slot, reply: ReplyMessage): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    slot.job = undefined;
    completed += 1;
    if ('error' in reply) {
      job.waiting.reject(new Error(`regex worker: ${reply.error}`));
    } else {
      charge(job.waiting.runId, reply.result.elapsedMs);
      job.waiting.resolve(outcomeOf(reply.result, job.budgetMs, job.waiting.search.patterns.length));
    }
    // Idle: let the process exit, and end the worker if nothing comes.
    slot.worker.unref();
    slot.idle = setTimeout(() => void slot.worker.terminate(), idleMs);
    slot.idle.unref();
    pump();
  }

  /** Search time `waiting` may have: the case's budget, or what is left of its run's if less. */
  function budgetOf(waiting: Waiting): number {
    const spent = waiting.runId === undefined ? 0 : (runSpent.get(waiting.runId) ?? 0);
    return Math.min(caseBudgetMs, runBudgetMs - spent);
  }

  /** The next waiting job, no longer listening to its signal. */
  function next(): Waiting {
    const waiting = queue.shift()!;
    if (waiting.onAbort) waiting.signal?.removeEventListener('abort', waiting.onAbort);
    return waiting;
  }

  /** Starts waiting jobs on free workers, starting workers up to the limit. */
  function pump(): void {
    while (queue.length > 0 && !closed) {
      const budgetMs = budgetOf(queue[0]);
      if (budgetMs <= 0) {
        const waiting = next();
        waiting.resolve(runExhausted(0, waiting.search.patterns.length));
        continue;
      }
      let free = slots.find((s) => !s.job);
      if (!free && slots.length < maxWorkers) {
        try {
          free = spawn();
        } catch (err) {
          next().reject(new Error(`the regex worker did not start: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
          continue;
        }
      }
      if (!free) return;
      const waiting = next();
      const id = nextId++;
      free.job = { id, waiting, budgetMs };
      clearTimeout(free.idle);
      free.worker.ref();
      const { patterns, flags, text } = waiting.search;
      const message: JobMessage = { id, job: { patterns, flags, text, budgetMs } satisfies SearchJob };
      free.worker.postMessage(message);
    }
  }

  return {
    search(search, opts = {}) {
      if (closed) return Promise.reject(new Error('the regex pool is closed'));
      if (opts.signal?.aborted) return Promise.reject(abortReason(opts.signal));
      return new Promise<PatternSearchOutcome>((resolve, reject) => {
        const waiting: Waiting = { search, runId: opts.runId, signal: opts.signal, resolve, reject };
        if (opts.signal) {
          const signal = opts.signal;
          waiting.onAbort = () => {
            const at = queue.indexOf(waiting);
            if (at >= 0) queue.splice(at, 1);
            reject(abortReason(signal));
          };
          signal.addEventListener('abort', waiting.onAbort, { once: true });
        }
        queue.push(waiting);
        pump();
      });
    },
    stats() {
      return { workers: slots.length, running: slots.filter((s) => s.job).length, queued: queue.length, completed };
    },
    async close() {
      closed = true;
      for (const waiting of queue.splice(0)) waiting.reject(new Error('the regex pool is closed'));
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

let shared: RegexPool | undefined;

/** The process's pool (made on first use): what the `regex` scorer searches with. */
export function regexPool(): RegexPool {
  shared ??= createRegexPool();
  return shared;
}

/** Makes `pool` the process's pool (a test's with small budgets); returns the one it replaces, if any. */
export function setRegexPool(pool: RegexPool): RegexPool | undefined {
  const previous = shared;
  shared = pool;
  return previous;
}
