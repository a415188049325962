import type { ComponentType, SpanStatus, SpanType } from '../../model/span.js';
import { parseArguments, type ParsedArguments } from './json-value.js';
import { readSpan, TOOL_NAME_KEYS } from './span-read.js';

export { TOOL_NAME_KEYS };

/**
 * A case's trace as a tree of spans, for scorers that judge what the agent did rather than only
 * what it answered (the trajectory scorers: docs/scorers.md "Trajectory scorers"). Built from the
 * normalized span model under any of the names it travels by: a SpanRecord as ingest makes it
 * (collector/normalize), a span view as the API answers it (SpanView: `type`, ISO times, `cost`),
 * a span as the online store hands it to scorers (ScoredSpan: `start_ms`), or a span of the
 * SPEC's JSON body as an agent returns it (`tool_input` / `tool_output` / `tool_status`
 * attributes, structured inputs). Total over what it is given: a span without an id is left out,
 * a second span with an id already seen is dropped, a span whose parent is not in the trace is a
 * root (an orphan), and a parent link that closes a cycle is dropped (the earliest span of the
 * cycle becomes a root); `anomalies` counts each.
 */

/** Where a span hangs in the tree, and why. */
export type SpanLink =
  /** It names no parent. */
  | 'root'
  /** Its parent is in the trace. */
  | 'child'
  /** It names a parent the trace does not hold: a root here. */
  | 'orphan'
  /** Its parent link closed a cycle and was dropped: a root here. */
  | 'cycle';

/** One span of the tree. Times are milliseconds since the epoch. */
export interface SpanNode {
  readonly id: string;
  /** The parent the span named (null: none), whether or not the trace holds it. */
  readonly parentId: string | null;
  /** The parent in the tree: null for roots, orphans and spans whose link closed a cycle. */
  readonly parent: SpanNode | null;
  /** In start order. */
  readonly children: readonly SpanNode[];
  /** 0 for a root. */
  readonly depth: number;
  /** Position in the trace's start order (start time, then span id), from 0. */
  readonly order: number;
  readonly link: SpanLink;
  readonly name: string;
  readonly type: SpanType;
  readonly component: ComponentType | null;
  readonly status: SpanStatus;
  readonly statusMessage: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly durationMs: number;
  readonly model: string | null;
  /** For a tool span, its arguments; for a model call, its prompt; as text ('' when none). */
  readonly input: string;
  /** For a tool span, its result; for a model call, its response; as text ('' when none). */
  readonly output: string;
  /** Tokens of the span's own model call: 0 on every span that is not a generation. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** What the model call cost in USD, when the price table priced it; null otherwise. */
  readonly costUsd: number | null;
  /** As stored: every value text (objects and arrays as JSON). See {@link attribute} for values moved to input/output. */
  readonly attributes: Readonly<Record<string, string>>;
  /** A tool call (span type or component type `tool`). */
  readonly isTool: boolean;
  /** A model call (span type `generation`, embeddings included). */
  readonly isLlm: boolean;
  /** Status `error`, or attribute `tool_status` `error`. */
  readonly isError: boolean;
  /** The tool's name, for a tool span: the first of {@link TOOL_NAME_KEYS} it has, else its span name. Null on other spans. */
  readonly toolName: string | null;
  /** The SPEC's skill or tool selection attributes, when the span has any of them; null otherwise. */
  readonly selection: SpanSelection | null;
}

/**
 * A choice the agent recorded on a span (SPEC "skill or tool selection": `skill_category`,
 * `selection_confidence`, `selection_reason`, `alternatives_considered`), read from its attributes.
 */
export interface SpanSelection {
  /** `skill_category`; null when absent or empty. */
  readonly category: string | null;
  /** `selection_confidence` as a number in 0..1; null when absent or not such a number (see {@link confidenceText}). */
  readonly confidence: number | null;
  /** The attribute as sent, when it is there ('' otherwise): a confidence that is not a number in 0..1 is named in reasons. */
  readonly confidenceText: string;
  /** `selection_reason`; null when absent or empty. */
  readonly reason: string | null;
  /** `alternatives_considered`: a JSON list of strings as sent (other items as JSON), or a comma-separated text; [] when absent. */
  readonly alternatives: readonly string[];
}

/** A tool call of the trace: a tool span read as a call. */
export interface TreeToolCall {
  readonly span: SpanNode;
  readonly name: string;
  /** The arguments as sent: the tool span's input. */
  readonly argumentsText: string;
  /** The arguments parsed as JSON (read once, on first use); `text` when they are not JSON. */
  readonly arguments: ParsedArguments;
  readonly result: string;
  readonly error: boolean;
}

/** What the tree counts over all its spans. */
export interface TreeStats {
  spans: number;
  llmCalls: number;
  toolCalls: number;
  errors: number;
  /** Over generation spans only, as the trace summary counts them. */
  inputTokens: number;
  outputTokens: number;
  /** USD over the priced generation spans. */
  costUsd: number;
  pricedLlmCalls: number;
  unpricedLlmCalls: number;
  /** From the earliest start to the latest end; 0 without spans. */
  wallMs: number;
  startMs: number | null;
  endMs: number | null;
  /** Deepest depth (0: only roots); -1 without spans. */
  maxDepth: number;
}

/** What the tree did with spans that did not fit a tree. */
export interface TreeAnomalies {
  /** Inputs with no span id: left out. */
  withoutId: number;
  /** Spans whose id was seen before: the first kept. */
  duplicates: number;
  /** Spans naming a parent the trace does not hold. */
  orphans: number;
  /** Parent links dropped because they closed a cycle. */
  cycles: number;
}

export interface SpanTree {
  readonly traceId: string | null;
  /** Every span once, in start order (start time, then span id). */
  readonly spans: readonly SpanNode[];
  /** Roots (including orphans and cycle breaks), in start order. */
  readonly roots: readonly SpanNode[];
  readonly anomalies: TreeAnomalies;
  get(spanId: string): SpanNode | undefined;
  /** Depth first: a parent before its children, siblings in start order. */
  walk(): readonly SpanNode[];
  /** Tool spans as calls, in start order. */
  toolCalls(): readonly TreeToolCall[];
  /** Generation spans, in start order. */
  llmCalls(): readonly SpanNode[];
  /** Spans with an error ({@link SpanNode.isError}), in start order. */
  errors(): readonly SpanNode[];
  /** The parent, its parent..., up to the root. */
  ancestors(node: SpanNode): SpanNode[];
  /** Every span below `node`, depth first. */
  descendants(node: SpanNode): SpanNode[];
  stats(): TreeStats;
}

/** A span of any of the shapes above; read field by field, leniently. */
export type TreeSpanInput = object;

/** A node while the tree is built. */
export type MutableNode = { -readonly [K in keyof SpanNode]: SpanNode[K] };

/**
 * The tree of `spans` (any order). Pure; linear in the spans (plus the sort), whatever their
 * links: a cycle or a chain of 5,000 parents costs no recursion.
 */
export function buildSpanTree(spans: readonly TreeSpanInput[], traceId: string | null = null): SpanTree {
  const anomalies: TreeAnomalies = { withoutId: 0, duplicates: 0, orphans: 0, cycles: 0 };
  const byId = new Map<string, MutableNode>();
  for (const input of spans) {
    const node = readSpan(input);
    if (!node) anomalies.withoutId += 1;
    else if (byId.has(node.id)) anomalies.duplicates += 1;
    else byId.set(node.id, node);
  }
  const nodes = [...byId.values()].sort((a, b) => a.startMs - b.startMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  nodes.forEach((node, i) => (node.order = i));

  // Parents: the named one when the trace holds it.
  for (const node of nodes) {
    if (node.parentId === null) continue;
    const parent = byId.get(node.parentId);
    if (parent) {
      node.parent = parent;
      node.link = 'child';
    } else {
      node.link = 'orphan';
      anomalies.orphans += 1;
    }
  }
  anomalies.cycles = breakCycles(nodes);

  for (const node of nodes) if (node.parent) (node.parent.children as SpanNode[]).push(node);
  const roots = nodes.filter((node) => node.parent === null);
  const walked = depthFirst(roots);

  let memoTools: TreeToolCall[] | undefined;
  let memoStats: TreeStats | undefined;
  return {
    traceId,
    spans: nodes,
    roots,
    anomalies,
    get: (id) => byId.get(id),
    walk: () => walked,
    toolCalls: () => (memoTools ??= nodes.filter((n) => n.isTool).map(toolCallOf)),
    llmCalls: () => nodes.filter((n) => n.isLlm),
    errors: () => nodes.filter((n) => n.isError),
    ancestors(node) {
      const out: SpanNode[] = [];
      for (let at = node.parent; at; at = at.parent) out.push(at);
      return out;
    },
    descendants(node) {
      return depthFirst(node.children).filter((n) => n !== node);
    },
    stats: () => (memoStats ??= statsOf(nodes)),
  };
}

/**
 * Drops the parent link that closes each cycle (a span that is its own ancestor): of the spans
 * on the cycle, the earliest in start order becomes a root. Iterative; returns the links dropped.
 */
function breakCycles(nodes: MutableNode[]): number {
  const NEW = 0;
  const ON_PATH = 1;
  const DONE = 2;
  const state = new Uint8Array(nodes.length);
  let dropped = 0;
  for (const start of nodes) {
    if (state[start.order] !== NEW) continue;
    const path: MutableNode[] = [];
    let at: MutableNode | null = start;
    while (at && state[at.order] === NEW) {
      state[at.order] = ON_PATH;
      path.push(at);
      at = at.parent;
    }
    if (at && state[at.order] === ON_PATH) {
      // `at` is on the path: the path from it to its end is the cycle.
      const cycle = path.slice(path.indexOf(at));
      const first = cycle.reduce((a, b) => (b.order < a.order ? b : a));
      first.parent = null;
      first.link = 'cycle';
      dropped += 1;
    }
    for (const node of path) state[node.order] = DONE;
  }
  return dropped;
}

/** Parents before children, siblings in start order; sets each node's depth. Iterative. */
function depthFirst(roots: readonly SpanNode[]): SpanNode[] {
  const out: SpanNode[] = [];
  const stack: Array<{ node: SpanNode; depth: number }> = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ node: roots[i], depth: roots[i].depth });
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    (node as MutableNode).depth = depth;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i], depth: depth + 1 });
  }
  return out;
}

function statsOf(nodes: readonly SpanNode[]): TreeStats {
  const s: TreeStats = {
    spans: nodes.length,
    llmCalls: 0,
    toolCalls: 0,
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    pricedLlmCalls: 0,
    unpricedLlmCalls: 0,
    wallMs: 0,
    startMs: null,
    endMs: null,
    maxDepth: -1,
  };
  for (const n of nodes) {
    if (n.isTool) s.toolCalls += 1;
    if (n.isError) s.errors += 1;
    if (n.isLlm) {
      s.llmCalls += 1;
      s.inputTokens += n.inputTokens;
      s.outputTokens += n.outputTokens;
      if (n.costUsd === null) s.unpricedLlmCalls += 1;
      else {
        s.pricedLlmCalls += 1;
        s.costUsd += n.costUsd;
      }
    }
    s.startMs = s.startMs === null ? n.startMs : Math.min(s.startMs, n.startMs);
    s.endMs = s.endMs === null ? n.endMs : Math.max(s.endMs, n.endMs);
    s.maxDepth = Math.max(s.maxDepth, n.depth);
  }
  if (s.startMs !== null && s.endMs !== null) s.wallMs = s.endMs - s.startMs;
  return s;
}

function toolCallOf(span: SpanNode): TreeToolCall {
  let parsed: ParsedArguments | undefined;
  return {
    span,
    name: span.toolName ?? span.name,
    argumentsText: span.input,
    get arguments() {
      return (parsed ??= parseArguments(span.input));
    },
    result: span.output,
    error: span.isError,
  };
}

/**
 * An attribute of the span as sent, including one ingest moved into `input` or `output` because
 * it was large and equal to it (`agent_eval.input_source` / `agent_eval.output_source` name it:
 * docs/conventions.md "Large values are stored once"); undefined when the span does not have it.
 */
export function attribute(node: SpanNode, key: string): string | undefined {
  const a = node.attributes;
  if (Object.hasOwn(a, key)) return a[key];
  if (a['agent_eval.input_source'] === key) return node.input;
  if (a['agent_eval.output_source'] === key) return node.output;
  return undefined;
}
