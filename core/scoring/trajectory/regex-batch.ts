import { setMaxListeners } from 'node:events';
import { REGEX_CASE_BUDGET_MS, searchPatterns } from '../../safe-regex.js';
import { cut } from '../rules/support.js';

/**
 * The regular expressions of a trajectory scorer's config (span name patterns, attribute and
 * argument predicates), searched the one safe way: on RE2, on the regex pool's worker threads,
 * never on the event loop (core/safe-regex.ts, docs/scorers.md "Patterns run on RE2"). A scorer
 * first walks the tree with {@link RegexBatch.collecting} as its oracle, which records every
 * (pattern, flags, text) it would test and answers "matched"; {@link RegexBatch.run} searches
 * them, one pool job per distinct text and flags (all the patterns wanted on it); the scorer then
 * walks again with {@link RegexBatch.deciding}, which answers from the results.
 *
 * Budget: one job is bounded by the pool (a case's budget of search time, and the run's); all the
 * jobs of one scorer's evaluation share {@link REGEX_CASE_BUDGET_MS} of wall time, after which
 * the jobs still waiting are dropped and the scorer fails with a reason that says so.
 */

/** Tests `pattern` (with `flags`) on `text`: whether it matches. */
export type RegexOracle = (pattern: string, flags: string, text: string) => boolean;

interface Job {
  flags: string;
  text: string;
  patterns: string[];
  /** Matched, by pattern; filled by run(). */
  matched?: Map<string, boolean>;
}

export interface RegexBatchOptions {
  /** The eval run the case belongs to (its cases share the run's budget). */
  runId?: string;
  signal?: AbortSignal;
  /** Wall time all the searches may take (ms); REGEX_CASE_BUDGET_MS by default. */
  budgetMs?: number;
}

export class RegexBatch {
  private readonly jobs = new Map<string, Job>();
  private searched = false;

  /** Records every test and answers true: the walk that finds what to search. */
  readonly collecting: RegexOracle = (pattern, flags, text) => {
    const key = `${flags}\u0000${text}`;
    let job = this.jobs.get(key);
    if (!job) {
      job = { flags, text, patterns: [] };
      this.jobs.set(key, job);
    }
    if (!job.patterns.includes(pattern)) job.patterns.push(pattern);
    return true;
  };

  /** Answers from the searches: the walk that decides. A test the collecting walk did not record throws. */
  readonly deciding: RegexOracle = (pattern, flags, text) => {
    if (!this.searched) throw new Error('regex batch: deciding before the searches ran');
    const matched = this.jobs.get(`${flags}\u0000${text}`)?.matched?.get(pattern);
    if (matched === undefined) throw new Error(`regex batch: /${cut(pattern, 40)}/ was not searched on this text`);
    return matched;
  };

  /** Distinct (text, flags) searches recorded. */
  get size(): number {
    return this.jobs.size;
  }

  /** Searches everything recorded on the regex pool. Rejects with the reason when a budget ran out or a pattern does not compile. */
  async run(options: RegexBatchOptions = {}): Promise<void> {
    const jobs = [...this.jobs.values()];
    this.searched = true;
    if (jobs.length === 0) return;
    const budgetMs = options.budgetMs ?? REGEX_CASE_BUDGET_MS;
    const deadline = AbortSignal.timeout(budgetMs);
    // On the first failure the searches still waiting are dropped: their answers no longer matter.
    const stop = new AbortController();
    const signal = AbortSignal.any(options.signal ? [options.signal, deadline, stop.signal] : [deadline, stop.signal]);
    // Each job waiting in the pool listens to it: thousands of listeners here are expected.
    setMaxListeners(jobs.length + 10, signal);
    let done = 0;
    try {
      await Promise.all(
        jobs.map(async (job) => {
          const outcome = await searchPatterns({ patterns: job.patterns, flags: job.flags, text: job.text }, { runId: options.runId, signal });
          if (outcome.kind === 'invalid') {
            throw new Error(`invalid regular expression /${cut(job.patterns[outcome.index], 80)}/${job.flags}: ${outcome.message}`);
          }
          if (outcome.kind === 'over-budget') throw new Error(outcome.reason);
          job.matched = new Map(job.patterns.map((p, i) => [p, outcome.results[i].match !== null]));
          done += 1;
        }),
      );
    } catch (err) {
      stop.abort();
      options.signal?.throwIfAborted();
      if (deadline.aborted) {
        throw new Error(
          `regex budget exhausted: a trajectory scorer's searches may take ${budgetMs / 1000} s in all (docs/scorers.md); ${done} of its ${jobs.length} searches were done`,
          { cause: err },
        );
      }
      throw err;
    }
  }
}
