import { COMPONENT_TYPES, SPAN_TYPES, type ComponentType, type SpanStatus, type SpanType } from '../../model/span.js';
import type { MutableNode, SpanSelection } from './span-tree.js';

/**
 * One span of any shape the span tree reads (span-tree.ts: a SpanRecord, a span view, a
 * ScoredSpan, a span of the SPEC's JSON body) as a tree node, before it is linked. Lenient: a
 * field of the wrong type reads as absent.
 */

/** Attributes that name the tool of a tool span, by convention: SPEC, GenAI, OpenInference, Vercel AI SDK, OpenLLMetry. */
export const TOOL_NAME_KEYS = ['tool_name', 'gen_ai.tool.name', 'tool.name', 'ai.toolCall.name', 'traceloop.entity.name'] as const;

/** The SPEC's skill or tool selection attributes. */
export const SELECTION_KEYS = ['skill_category', 'selection_confidence', 'selection_reason', 'alternatives_considered'] as const;

type Fields = Record<string, unknown>;

const isRecord = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as the store holds text: strings as they are, scalars via String(), structures as JSON. */
function asText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

function textMap(v: unknown): Record<string, string> {
  if (!isRecord(v)) return {};
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) out[k] = asText(value);
  return out;
}

/** Milliseconds since the epoch from a number (ms) or an ISO text; undefined otherwise. */
function timeOf(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v !== '') {
    const ms = Date.parse(v);
    return Number.isFinite(ms) ? ms : undefined;
  }
  if (v instanceof Date) return Number.isFinite(v.getTime()) ? v.getTime() : undefined;
  return undefined;
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

function costOf(f: Fields): number | null {
  const pricing = f.pricing;
  const fromPricing = isRecord(pricing) && isRecord(pricing.cost) ? pricing.cost.total : undefined;
  const fromView = isRecord(f.cost) ? f.cost.total : undefined;
  const total = fromPricing ?? fromView ?? f.cost_usd;
  return typeof total === 'number' && Number.isFinite(total) && total >= 0 ? total : null;
}

/** The span's type and component type: the normalized fields, or a SPEC kind (`planning`...) as a span of that component. */
function kindOf(f: Fields): { type: SpanType; component: ComponentType | null } {
  const rawType = typeof f.span_type === 'string' ? f.span_type : typeof f.type === 'string' ? f.type : '';
  const rawComponent = typeof f.component_type === 'string' ? f.component_type : null;
  const type = (SPAN_TYPES as readonly string[]).includes(rawType) ? (rawType as SpanType) : 'span';
  let component = rawComponent !== null && (COMPONENT_TYPES as readonly string[]).includes(rawComponent) ? (rawComponent as ComponentType) : null;
  if (component === null && !('component_type' in f)) {
    // A SPEC body's span: its kind is its component (tool, retrieval, planning...), `span` none.
    if ((COMPONENT_TYPES as readonly string[]).includes(rawType)) component = rawType as ComponentType;
  }
  return { type, component };
}

/** A span as an unlinked node (no parent, no children, depth and order 0); undefined without an id. */
export function readSpan(span: object): MutableNode | undefined {
  if (!isRecord(span)) return undefined;
  const f = span;
  const id = typeof f.span_id === 'string' ? f.span_id : typeof f.id === 'string' ? f.id : '';
  if (id === '') return undefined;
  const parentId = typeof f.parent_span_id === 'string' && f.parent_span_id !== '' ? f.parent_span_id : null;
  const { type, component } = kindOf(f);
  const attributes = textMap(f.attributes);
  const isTool = type === 'tool' || component === 'tool';
  const isLlm = type === 'generation';
  // A SPEC body's tool span: tool_input / tool_output win over input / output (docs/conventions.md).
  const input = isTool && attributes.tool_input !== undefined && !('convention' in f) ? attributes.tool_input : asText(f.input);
  const output = isTool && attributes.tool_output !== undefined && !('convention' in f) ? attributes.tool_output : asText(f.output);
  const start = timeOf(f.start_time) ?? timeOf(f.start_ms) ?? timeOf(f.startTimeMs) ?? 0;
  const end = Math.max(start, timeOf(f.end_time) ?? timeOf(f.end_ms) ?? timeOf(f.endTimeMs) ?? start);
  const status: SpanStatus = f.status === 'error' ? 'error' : 'ok';
  const model = typeof f.model === 'string' && f.model !== '' ? f.model : null;
  const toolName = isTool ? (TOOL_NAME_KEYS.map((k) => attributes[k]).find((v) => v !== undefined && v !== '') ?? asText(f.name)) : null;
  return {
    id,
    parentId,
    parent: null,
    children: [],
    depth: 0,
    order: 0,
    link: parentId === null ? 'root' : 'orphan',
    name: asText(f.name),
    type,
    component,
    status,
    statusMessage: asText(f.status_message ?? (isTool ? attributes.error_message : undefined)),
    startMs: start,
    endMs: end,
    durationMs: end - start,
    model,
    input,
    output,
    inputTokens: isLlm ? count(f.input_tokens) : 0,
    outputTokens: isLlm ? count(f.output_tokens) : 0,
    costUsd: isLlm ? costOf(f) : null,
    attributes,
    isTool,
    isLlm,
    isError: status === 'error' || attributes.tool_status === 'error',
    toolName,
    selection: selectionOf(attributes),
  };
}

/** The selection a span records (SELECTION_KEYS), or null when it has none of the attributes. */
function selectionOf(attributes: Readonly<Record<string, string>>): SpanSelection | null {
  if (!SELECTION_KEYS.some((k) => Object.hasOwn(attributes, k))) return null;
  const nonEmpty = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v : null);
  const confidenceText = attributes.selection_confidence ?? '';
  const n = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(confidenceText) ? Number(confidenceText) : Number.NaN;
  return {
    category: nonEmpty(attributes.skill_category),
    confidence: n >= 0 && n <= 1 ? n : null,
    confidenceText,
    reason: nonEmpty(attributes.selection_reason),
    alternatives: alternativesOf(attributes.alternatives_considered),
  };
}

/** A JSON list (strings as they are, other items as JSON), else comma-separated text; [] when absent or empty. */
function alternativesOf(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '') return [];
  if (/^\s*\[/.test(text)) {
    try {
      const list: unknown = JSON.parse(text);
      if (Array.isArray(list)) return list.map(asText).filter((v) => v !== '');
    } catch {
      // Not JSON: read as text below.
    }
  }
  return text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}
