import { z } from 'zod';
import { COMPONENT_TYPES, SPAN_TYPES } from '../../model/span.js';
import { cut } from '../rules/support.js';
import { describePredicate, predicateMismatch, PredicateSchema, usesRegex, type Predicate, type Subject } from './predicates.js';
import { RegexBatch, type RegexBatchOptions, type RegexOracle } from './regex-batch.js';
import { attribute, type SpanNode, type SpanTree } from './span-tree.js';

/**
 * Which spans of the tree a check is about (the `spanMatch` scorer; docs/scorers.md). Every field
 * given must hold (AND); an empty selector picks every span.
 *
 *   type: generation | [tool, retrieval]      the span type (span, generation, tool, retrieval)
 *   component: retrieval | [...]              the component type (generation, tool, retrieval, reasoning, planning, routing, memory, prompt)
 *   name / tool / model / input / output      a predicate on the span's name, tool name (tool spans), model, input or output text
 *   status: ok | error                        error: status error or tool_status error
 *   depth: 1 | {min: 1, max: 2}               0 for a root
 *   attributes: {key: predicate, ...}         attributes as sent (values as text)
 *   selection: {category, confidence,         the SPEC's skill or tool selection, as the tree reads it
 *               reason, alternatives}         (SpanNode.selection): a predicate each; confidence a number
 *                                             in 0..1, alternatives the list (as JSON for a regex)
 */

const asList = (v: unknown) => (typeof v === 'string' ? [v] : v);

const DepthSchema = z.preprocess(
  (v) => (typeof v === 'number' ? { min: v, max: v } : v),
  z
    .strictObject({ min: z.number().int().min(0).optional(), max: z.number().int().min(0).optional() })
    .refine((d) => d.min === undefined || d.max === undefined || d.min <= d.max, 'min must not be above max'),
);

const SelectionSelectorSchema = z
  .strictObject({
    category: PredicateSchema.optional(),
    confidence: PredicateSchema.optional(),
    reason: PredicateSchema.optional(),
    alternatives: PredicateSchema.optional(),
  })
  .refine((s) => Object.keys(s).length > 0, 'needs category, confidence, reason or alternatives');

export const SelectorSchema = z.strictObject({
  type: z.preprocess(asList, z.array(z.enum(SPAN_TYPES)).min(1).max(SPAN_TYPES.length)).optional(),
  component: z.preprocess(asList, z.array(z.enum(COMPONENT_TYPES)).min(1).max(COMPONENT_TYPES.length)).optional(),
  name: PredicateSchema.optional(),
  tool: PredicateSchema.optional(),
  model: PredicateSchema.optional(),
  input: PredicateSchema.optional(),
  output: PredicateSchema.optional(),
  status: z.enum(['ok', 'error']).optional(),
  depth: DepthSchema.optional(),
  attributes: z
    .record(z.string().min(1).max(1024), PredicateSchema)
    .refine((a) => Object.keys(a).length <= 50, 'at most 50 attributes')
    .optional(),
  selection: SelectionSelectorSchema.optional(),
});
export type Selector = z.output<typeof SelectorSchema>;

/** A predicate of the selector with the value it reads from a span. */
interface FieldTest {
  label: string;
  predicate: Predicate;
  read(node: SpanNode): Subject;
}

const present = (value: string): Subject => ({ found: true, value });

function fieldTests(sel: Selector): FieldTest[] {
  const tests: FieldTest[] = [];
  if (sel.name) tests.push({ label: 'name', predicate: sel.name, read: (n) => present(n.name) });
  if (sel.tool) tests.push({ label: 'tool', predicate: sel.tool, read: (n) => (n.toolName === null ? { found: false } : present(n.toolName)) });
  if (sel.model) tests.push({ label: 'model', predicate: sel.model, read: (n) => (n.model === null ? { found: false } : present(n.model)) });
  if (sel.input) tests.push({ label: 'input', predicate: sel.input, read: (n) => present(n.input) });
  if (sel.output) tests.push({ label: 'output', predicate: sel.output, read: (n) => present(n.output) });
  for (const [key, predicate] of Object.entries(sel.attributes ?? {})) {
    tests.push({
      label: `attribute ${key}`,
      predicate,
      read: (n) => {
        const value = attribute(n, key);
        return value === undefined ? { found: false } : present(value);
      },
    });
  }
  for (const [field, predicate] of Object.entries(sel.selection ?? {})) {
    tests.push({ label: `selection ${field}`, predicate, read: (n) => selectionField(n, field as SelectionField) });
  }
  // Regex tests last: a span the cheap tests rule out is never searched.
  return [...tests.filter((t) => !usesRegex(t.predicate)), ...tests.filter((t) => usesRegex(t.predicate))];
}

type SelectionField = keyof NonNullable<Selector['selection']>;

/** One field of the span's selection (absent when the span records none, or not this field). */
function selectionField(node: SpanNode, field: SelectionField): Subject {
  const s = node.selection;
  if (!s) return { found: false };
  if (field === 'alternatives') return s.alternatives.length ? { found: true, value: s.alternatives } : { found: false };
  const value = s[field];
  return value === null ? { found: false } : { found: true, value };
}

/** A selector ready to test spans. */
export interface CompiledSelector {
  readonly selector: Selector;
  /** Why `node` is not selected (the first test it fails), or null when it is. */
  mismatch(node: SpanNode, oracle: RegexOracle): string | null;
  /** The selector in words, for reasons: `{type tool, name /^delete_/}`. */
  readonly text: string;
}

export function compileSelector(selector: Selector): CompiledSelector {
  const tests = fieldTests(selector);
  return {
    selector,
    text: describeSelector(selector),
    mismatch(node, oracle) {
      if (selector.type && !selector.type.includes(node.type)) return `type is ${node.type}, not ${selector.type.join(' or ')}`;
      if (selector.component && (node.component === null || !selector.component.includes(node.component))) {
        return `component is ${node.component ?? 'none'}, not ${selector.component.join(' or ')}`;
      }
      if (selector.status && (selector.status === 'error') !== node.isError) return `status is ${node.isError ? 'error' : 'ok'}, not ${selector.status}`;
      const depth = selector.depth;
      if (depth && ((depth.min !== undefined && node.depth < depth.min) || (depth.max !== undefined && node.depth > depth.max))) {
        return `depth is ${node.depth}, not ${depthText(depth)}`;
      }
      for (const test of tests) {
        const why = predicateMismatch(test.predicate, test.read(node), oracle);
        if (why !== null) return `${test.label}: ${why}`;
      }
      return null;
    },
  };
}

/** The spans of `tree` that `selector` picks, in start order; its patterns searched on the regex pool (regex-batch.ts). */
export async function selectSpans(tree: SpanTree, selector: CompiledSelector, opts: RegexBatchOptions): Promise<SpanNode[]> {
  const batch = new RegexBatch();
  for (const node of tree.spans) selector.mismatch(node, batch.collecting);
  await batch.run(opts);
  return tree.spans.filter((node) => selector.mismatch(node, batch.deciding) === null);
}

function depthText(d: { min?: number; max?: number }): string {
  if (d.min !== undefined && d.min === d.max) return String(d.min);
  if (d.max === undefined) return `${d.min ?? 0} or more`;
  return `${d.min ?? 0} to ${d.max}`;
}

/** `{type tool, name /^delete_/, attribute tool_status = "error"}`; `{any span}` for the empty selector. */
export function describeSelector(sel: Selector): string {
  const parts: string[] = [];
  if (sel.type) parts.push(`type ${sel.type.join('|')}`);
  if (sel.component) parts.push(`component ${sel.component.join('|')}`);
  if (sel.name) parts.push(`name ${describePredicate(sel.name)}`);
  if (sel.tool) parts.push(`tool ${describePredicate(sel.tool)}`);
  if (sel.model) parts.push(`model ${describePredicate(sel.model)}`);
  if (sel.input) parts.push(`input ${describePredicate(sel.input)}`);
  if (sel.output) parts.push(`output ${describePredicate(sel.output)}`);
  if (sel.status) parts.push(`status ${sel.status}`);
  if (sel.depth) parts.push(`depth ${depthText(sel.depth)}`);
  for (const [key, p] of Object.entries(sel.attributes ?? {})) parts.push(`attribute ${cut(key, 60)} ${describePredicate(p)}`);
  for (const [field, p] of Object.entries(sel.selection ?? {})) parts.push(`selection ${field} ${describePredicate(p)}`);
  return cut(parts.length ? `{${parts.join(', ')}}` : '{any span}', 160);
}
