import { describe, expect, it } from 'vitest';
import { ancestorIds, buildTree, flattenTree } from '../../../ui/src/lib/tree.js';

const span = (span_id: string, parent_span_id: string | null = null) => ({ span_id, parent_span_id });
const names = (rows: Array<{ node: { span: { span_id: string } }; depth: number }>) => rows.map((r) => `${'-'.repeat(r.depth)}${r.node.span.span_id}`);

describe('span tree', () => {
  it('nests children under parents in the order the spans came', () => {
    const tree = buildTree([span('root'), span('a', 'root'), span('a1', 'a'), span('b', 'root')]);
    expect(names(flattenTree(tree.roots, new Set()))).toEqual(['root', '-a', '--a1', '-b']);
  });

  it('shows a span whose parent is not (yet) loaded as a root', () => {
    const tree = buildTree([span('root'), span('orphan', 'on-a-later-page')]);
    expect(tree.roots.map((n) => n.span.span_id)).toEqual(['root', 'orphan']);
  });

  it('hides the subtrees of collapsed spans, and marks them', () => {
    const tree = buildTree([span('root'), span('a', 'root'), span('a1', 'a'), span('b', 'root')]);
    const rows = flattenTree(tree.roots, new Set(['a']));
    expect(names(rows)).toEqual(['root', '-a', '-b']);
    expect(rows[1].collapsed).toBe(true);
    // A leaf cannot be collapsed.
    expect(flattenTree(tree.roots, new Set(['b']))[3].collapsed).toBe(false);
  });

  it('shows every span once even when parents form a cycle or a span is its own parent', () => {
    const tree = buildTree([span('x', 'y'), span('y', 'x'), span('self', 'self')]);
    const rows = flattenTree(tree.roots, new Set());
    expect(rows.map((r) => r.node.span.span_id).sort()).toEqual(['self', 'x', 'y']);
  });

  it('keeps the first of duplicate span ids', () => {
    const tree = buildTree([span('a'), span('a', 'zzz')]);
    expect(flattenTree(tree.roots, new Set())).toHaveLength(1);
  });

  it('flattens a 10,000-deep chain without overflowing the stack', () => {
    const spans = [span('s0')];
    for (let i = 1; i < 10_000; i++) spans.push(span(`s${i}`, `s${i - 1}`));
    const rows = flattenTree(buildTree(spans).roots, new Set());
    expect(rows).toHaveLength(10_000);
    expect(rows[9999].depth).toBe(9999);
  });

  it('lists the ancestors of a span, nearest first', () => {
    const tree = buildTree([span('root'), span('a', 'root'), span('a1', 'a')]);
    expect(ancestorIds(tree, 'a1')).toEqual(['a', 'root']);
    expect(ancestorIds(tree, 'root')).toEqual([]);
  });
});
