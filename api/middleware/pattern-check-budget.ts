import type Koa from 'koa';
import { withPatternCheckBudget } from '../../core/safe-regex/check-budget.js';

/** Every API request checks the patterns it brings within one budget (core/safe-regex/check-budget.ts). */
export function patternCheckBudget(): Koa.Middleware {
  return (ctx, next) => withPatternCheckBudget(() => next());
}
