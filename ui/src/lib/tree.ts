/** The span tree of a trace and the rows a waterfall shows of it. */

export interface TreeSpan {
  span_id: string;
  parent_span_id: string | null;
}

export interface SpanNode<S extends TreeSpan> {
  span: S;
  children: SpanNode<S>[];
}

export interface SpanTree<S extends TreeSpan> {
  roots: SpanNode<S>[];
  byId: Map<string, SpanNode<S>>;
}

/**
 * Builds the tree from spans in display order (the API sends them by start time). A span whose
 * parent is absent (not sent, or on a page not loaded yet) is a root; a parent cycle, which only
 * bad data makes, is broken where it is found so every span is shown exactly once.
 */
export function buildTree<S extends TreeSpan>(spans: readonly S[]): SpanTree<S> {
  const byId = new Map<string, SpanNode<S>>();
  for (const span of spans) if (!byId.has(span.span_id)) byId.set(span.span_id, { span, children: [] });
  const roots: SpanNode<S>[] = [];
  for (const node of byId.values()) {
    const parentId = node.span.parent_span_id;
    const parent = parentId && parentId !== node.span.span_id ? byId.get(parentId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  // Nodes on a parent cycle are reachable from no root: cut each cycle at its first member seen.
  const reached = new Set<SpanNode<S>>();
  const mark = (start: SpanNode<S>) => {
    const stack = [start];
    while (stack.length) {
      const n = stack.pop()!;
      if (reached.has(n)) continue;
      reached.add(n);
      for (const c of n.children) stack.push(c);
    }
  };
  for (const r of roots) mark(r);
  if (reached.size < byId.size) {
    for (const node of byId.values()) {
      if (reached.has(node)) continue;
      const parent = byId.get(node.span.parent_span_id!)!;
      parent.children = parent.children.filter((c) => c !== node);
      roots.push(node);
      mark(node);
    }
  }
  return { roots, byId };
}

export interface TreeRow<S extends TreeSpan> {
  node: SpanNode<S>;
  depth: number;
  /** Whether the node's subtree is folded away. */
  collapsed: boolean;
}

/**
 * The visible rows, depth first, skipping the subtrees of `collapsed` span ids and, when `keep`
 * is given, every span not in it (a filter's matches and their ancestors). Iterative: a
 * 10,000-deep chain is fine.
 */
export function flattenTree<S extends TreeSpan>(roots: readonly SpanNode<S>[], collapsed: ReadonlySet<string>, keep?: ReadonlySet<string>): TreeRow<S>[] {
  const rows: TreeRow<S>[] = [];
  const stack: Array<{ node: SpanNode<S>; depth: number }> = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ node: roots[i], depth: 0 });
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (keep && !keep.has(node.span.span_id)) continue;
    const isCollapsed = collapsed.has(node.span.span_id) && node.children.length > 0;
    rows.push({ node, depth, collapsed: isCollapsed });
    if (isCollapsed) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i], depth: depth + 1 });
  }
  return rows;
}

/** The ids of a span's ancestors, nearest first: expanding them reveals the span. */
export function ancestorIds<S extends TreeSpan>(tree: SpanTree<S>, spanId: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>([spanId]);
  let node = tree.byId.get(spanId);
  while (node?.span.parent_span_id) {
    const parent = tree.byId.get(node.span.parent_span_id);
    if (!parent || seen.has(parent.span.span_id)) break;
    seen.add(parent.span.span_id);
    out.push(parent.span.span_id);
    node = parent;
  }
  return out;
}

/** Every span in tree order (depth first, children in start order), folded or not. */
export function treeOrder<S extends TreeSpan>(roots: readonly SpanNode<S>[]): S[] {
  return flattenTree(roots, new Set()).map((r) => r.node.span);
}

/**
 * For each span with failing descendants, how many there are (the span itself not counted): a
 * folded row shows it, so an error is never hidden inside a collapsed subtree. `failed` says
 * which spans count. Iterative, children before parents.
 */
export function errorsBelow<S extends TreeSpan>(roots: readonly SpanNode<S>[], failed: (span: S) => boolean): Map<string, number> {
  const below = new Map<string, number>();
  const order: SpanNode<S>[] = [];
  const stack = [...roots];
  while (stack.length) {
    const node = stack.pop()!;
    order.push(node);
    for (const c of node.children) stack.push(c);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i];
    let n = 0;
    for (const c of node.children) n += (failed(c.span) ? 1 : 0) + (below.get(c.span.span_id) ?? 0);
    if (n > 0) below.set(node.span.span_id, n);
  }
  return below;
}
