/**
 * Agent and chain spans: the conventions store them as plain spans (span type `span`, no
 * component type: collector/normalize/conventions/*), since they wrap the model calls and often
 * carry their children's token totals. The trace page still shows them apart from plain spans,
 * from the attributes each convention names them by.
 */
import { COMPONENT_TYPES } from './filters.js';

export type SpanRole = 'agent' | 'chain';

interface RoleSpan {
  type: string;
  component_type: string | null;
  attributes?: Record<string, string> | null;
}

/** Attribute values that name an agent or a chain (workflow, task, step), by convention. */
const ROLE_BY_ATTRIBUTE: ReadonlyArray<readonly [key: string, values: Readonly<Record<string, SpanRole>>]> = [
  // OpenInference (Phoenix): openinference.span.kind.
  ['openinference.span.kind', { agent: 'agent', chain: 'chain' }],
  // OpenTelemetry GenAI: gen_ai.operation.name.
  ['gen_ai.operation.name', { invoke_agent: 'agent', create_agent: 'agent', invoke_workflow: 'chain', agent_step: 'chain' }],
  // OpenLLMetry (Traceloop): traceloop.span.kind.
  ['traceloop.span.kind', { agent: 'agent', workflow: 'chain', task: 'chain' }],
  // Vercel AI SDK: the wrapper of a generateText / streamText call's steps.
  ['ai.operationId', { 'ai.generatetext': 'chain', 'ai.streamtext': 'chain', 'ai.generateobject': 'chain', 'ai.streamobject': 'chain' }],
];

/** Whether a plain span is an agent or a chain by its attributes; null for anything else. */
export function spanRole(span: RoleSpan): SpanRole | null {
  if (span.type !== 'span' || span.component_type !== null) return null;
  const attrs = span.attributes ?? {};
  for (const [key, values] of ROLE_BY_ATTRIBUTE) {
    const v = attrs[key];
    if (typeof v !== 'string') continue;
    const role = values[v.trim().toLowerCase()];
    if (role) return role;
  }
  return null;
}

/** The kind a span is drawn as: agent or chain, else its component type, else its span type. */
export function displayKind(span: RoleSpan): string {
  return spanRole(span) ?? span.component_type ?? span.type;
}

/** The kinds the trace page's legend and type filter name, in that order: agent, chain, each component type, span. */
export const DISPLAY_KINDS = ['agent', 'chain', ...COMPONENT_TYPES, 'span'] as const;
