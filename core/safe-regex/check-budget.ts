import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * How much pattern checking one API request may cost. Every pattern that enters (a suite's cases,
 * a run's dataset, a scorer's config) is compiled once to check it, on the event loop the API
 * shares. One pattern is bounded by its size (MAX_PATTERN_SIZE), but a body may hold many: a suite
 * of thousands of cases with large patterns would hold every other request for minutes. So each
 * request gets a budget in size units (a pattern's estimated size plus a fixed cost for its
 * compile), ~0.5 s of compiling at most; patterns past it are refused, naming the budget. Code
 * that checks patterns outside a request (the CLI, the SDK, tests) runs without one.
 */
export const PATTERN_CHECK_BUDGET = 200_000;
/** What checking any pattern costs at least, in size units (re2js's fixed cost of a compile, ~25 µs). */
export const PATTERN_CHECK_FIXED_COST = 10;

const budgets = new AsyncLocalStorage<{ left: number }>();

/** Runs `fn` (a request's handling) with a fresh pattern-checking budget. */
export function withPatternCheckBudget<T>(fn: () => T): T {
  return budgets.run({ left: PATTERN_CHECK_BUDGET }, fn);
}

/** Takes `units` from the current request's budget; false when it is spent (nothing is taken then). */
export function chargePatternCheck(units: number): boolean {
  const budget = budgets.getStore();
  if (!budget) return true;
  if (units > budget.left) {
    budget.left = 0;
    return false;
  }
  budget.left -= units;
  return true;
}
