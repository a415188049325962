import { z } from 'zod';
import { cut, ruleScorer } from '../rules/support.js';
import type { Scorer } from '../scorer.js';
import { RegexBatch, type RegexOracle } from './regex-batch.js';
import { compileSelector, SelectorSchema, type CompiledSelector } from './selector.js';
import type { SpanNode, SpanTree } from './span-tree.js';
import { plural, requireTree, spanLabel } from './support.js';

/**
 * `spanMatch`: checks over the span tree (docs/scorers.md "spanMatch"). A check selects spans
 * (selector.ts: type, component, name, tool, model, status, depth, attributes...) and asserts:
 *   {select, exists: true | false}   some span is selected (the default), or none is
 *   {select, count: 2 | {min, max}}  how many are
 *   {select, every: selector}        every selected span also satisfies a second selector
 *                                    (true when none is selected; the reason says so)
 *   {before: selector, after: selector}
 *                                    order: some span of `before` ended at or before the first
 *                                    span of `after` started (both must exist)
 * Score = checks passed / checks; the reason names the first that failed.
 */

const CountSchema = z.preprocess(
  (v) => (typeof v === 'number' ? { min: v, max: v } : v),
  z
    .strictObject({ min: z.number().int().min(0).optional(), max: z.number().int().min(0).optional() })
    .refine((c) => c.min !== undefined || c.max !== undefined, 'needs min, max or both')
    .refine((c) => c.min === undefined || c.max === undefined || c.min <= c.max, 'min must not be above max'),
);

const CheckSchema = z
  .strictObject({
    select: SelectorSchema.optional(),
    exists: z.boolean().optional(),
    count: CountSchema.optional(),
    every: SelectorSchema.optional(),
    before: SelectorSchema.optional(),
    after: SelectorSchema.optional(),
  })
  .superRefine((c, ctx) => {
    const assertions = (['exists', 'count', 'every'] as const).filter((k) => c[k] !== undefined);
    if (c.before !== undefined || c.after !== undefined) {
      if (c.before === undefined || c.after === undefined) ctx.addIssue({ code: 'custom', message: 'an order check needs both before and after' });
      if (c.select !== undefined || assertions.length)
        ctx.addIssue({ code: 'custom', message: 'an order check holds only before and after (no select, exists, count or every)' });
      return;
    }
    if (c.select === undefined) ctx.addIssue({ code: 'custom', message: 'a check needs select (with exists, count or every), or before and after' });
    if (assertions.length > 1) ctx.addIssue({ code: 'custom', message: `a check asserts one thing: exists, count or every (got ${assertions.join(' and ')})` });
  });
type Check = z.output<typeof CheckSchema>;

const Config = z.strictObject({
  checks: z.array(CheckSchema).max(50).default([]),
});

interface CheckResult {
  pass: boolean;
  text: string;
}

/** A check with its selectors compiled. */
interface Compiled {
  check: Check;
  select?: CompiledSelector;
  every?: CompiledSelector;
  before?: CompiledSelector;
  after?: CompiledSelector;
}

export const spanMatchScorer: Scorer = ruleScorer({
  name: 'spanMatch',
  description:
    'Checks over the span tree (config.checks): select spans by type, component, name, tool, model, status, depth and attributes, then assert exists, count or every, or an order (before / after); score = checks passed / checks.',
  config: Config,
  async evaluate(input, config, signal) {
    if (config.checks.length === 0) throw new Error('spanMatch needs config.checks');
    const tree = requireTree(input, 'spanMatch');
    const compiled: Compiled[] = config.checks.map((check) => ({
      check,
      select: check.select && compileSelector(check.select),
      every: check.every && compileSelector(check.every),
      before: check.before && compileSelector(check.before),
      after: check.after && compileSelector(check.after),
    }));

    const batch = new RegexBatch();
    for (const c of compiled) runCheck(c, tree, batch.collecting);
    await batch.run({ runId: input.runId, signal });
    const results = compiled.map((c) => runCheck(c, tree, batch.deciding));

    const passed = results.filter((r) => r.pass).length;
    const failed = results.findIndex((r) => !r.pass);
    const evidence = results.slice(0, 50).map((r, i) => cut(`check ${i + 1} ${r.pass ? 'passed' : 'failed'}: ${r.text}`));
    if (failed < 0)
      return {
        score: 1,
        reason: `${results.length === 1 ? 'the check' : `all ${results.length} checks`} passed: ${results[0].text}${results.length > 1 ? '; ...' : ''}`,
        evidence,
      };
    const others = results.length - passed - 1;
    return {
      score: passed / results.length,
      reason: `${passed} of ${plural(results.length, 'check')} passed; check ${failed + 1} failed: ${results[failed].text}${others > 0 ? ` (and ${others} more failed)` : ''}`,
      evidence,
    };
  },
});

function selected(tree: SpanTree, selector: CompiledSelector, oracle: RegexOracle): SpanNode[] {
  return tree.spans.filter((node) => selector.mismatch(node, oracle) === null);
}

function countText(c: { min?: number; max?: number }): string {
  if (c.min !== undefined && c.min === c.max) return `exactly ${c.min}`;
  if (c.max === undefined) return `at least ${c.min}`;
  if (c.min === undefined || c.min === 0) return `at most ${c.max}`;
  return `${c.min} to ${c.max}`;
}

function runCheck(c: Compiled, tree: SpanTree, oracle: RegexOracle): CheckResult {
  if (c.before && c.after) return orderCheck(c.before, c.after, tree, oracle);
  const select = c.select!;
  const spans = selected(tree, select, oracle);
  const n = spans.length;
  const matching = `${plural(n, 'span')} match${n === 1 ? 'es' : ''} ${select.text}`;
  if (c.check.count) {
    const { min, max } = c.check.count;
    const pass = (min === undefined || n >= min) && (max === undefined || n <= max);
    const tooMany = max !== undefined && n > max;
    return { pass, text: `${matching}, expected ${countText(c.check.count)}${tooMany ? `; the first: ${spanLabel(tree, spans[0])}` : ''}` };
  }
  if (c.every) {
    if (n === 0) return { pass: true, text: `no span matches ${select.text}, so every one satisfies ${c.every.text}` };
    for (const node of spans) {
      const why = c.every.mismatch(node, oracle);
      if (why !== null) return { pass: false, text: `${matching}, and ${spanLabel(tree, node)} does not satisfy ${c.every.text}: ${why}` };
    }
    return { pass: true, text: `${matching}, and every one satisfies ${c.every.text}` };
  }
  if (c.check.exists === false) {
    return n === 0
      ? { pass: true, text: `no span matches ${select.text}` }
      : { pass: false, text: `${matching}, expected none; the first: ${spanLabel(tree, spans[0])}` };
  }
  return n > 0 ? { pass: true, text: matching } : { pass: false, text: `no span matches ${select.text}` };
}

function orderCheck(before: CompiledSelector, after: CompiledSelector, tree: SpanTree, oracle: RegexOracle): CheckResult {
  const first = selected(tree, before, oracle);
  const then = selected(tree, after, oracle);
  if (first.length === 0) return { pass: false, text: `no span matches ${before.text} (expected before ${after.text})` };
  if (then.length === 0) return { pass: false, text: `no span matches ${after.text} (expected after ${before.text})` };
  const start = tree.stats().startMs ?? 0;
  const target = then[0];
  const earlier = first.filter((node) => node !== target && node.endMs <= target.startMs);
  if (earlier.length > 0)
    return { pass: true, text: `${spanLabel(tree, earlier[0])} ${before.text} ended before ${spanLabel(tree, target)} ${after.text} started` };
  const soonest = first.filter((node) => node !== target).reduce<SpanNode | undefined>((a, b) => (!a || b.endMs < a.endMs ? b : a), undefined);
  return {
    pass: false,
    text: `no span matching ${before.text} ended before the first span matching ${after.text}, ${spanLabel(tree, target)}, started${
      soonest ? `; the first to end, ${spanLabel(tree, soonest)}, ended at +${Math.round(soonest.endMs - start)} ms` : ''
    }`,
  };
}
