import type { PromptTraceList, PromptTraceQuery } from '../../model/prompt.js';
import { fromClickHouseTime } from './time.js';
import { NEWEST_ROW_PER_SPAN } from './newest-span-rows.js';

type Rows = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

/**
 * Span attributes that name the prompt a generation used, as pairs of (name, version) keys, in
 * precedence order: our own, then Langfuse's SDK attributes (`langfuse.observation.prompt.*`,
 * what its OTel SDKs emit) and the shorter `langfuse.prompt.*`. A span names a prompt with the
 * first pair whose name is set; its version comes from the same pair.
 */
export const PROMPT_ATTRIBUTE_KEYS = [
  ['agent_eval.prompt.name', 'agent_eval.prompt.version'],
  ['langfuse.observation.prompt.name', 'langfuse.observation.prompt.version'],
  ['langfuse.prompt.name', 'langfuse.prompt.version'],
] as const;

const attr = (key: string) => `attributes['${key}']`;

/** `multiIf` over the pairs: the name (i = 0) or version (i = 1) of the first pair with a name. */
export function promptAttribute(i: 0 | 1): string {
  const branches = PROMPT_ATTRIBUTE_KEYS.map((pair) => `${attr(pair[0])} != '', ${attr(pair[i])}`).join(', ');
  return `multiIf(${branches}, '')`;
}

const NAMES_PROMPT = PROMPT_ATTRIBUTE_KEYS.map((pair) => `${attr(pair[0])} = {name:String}`).join(' OR ');

/**
 * Traces whose spans name the prompt, newest first. Candidates are found by attribute (any
 * stored version of a span); each candidate's newest row then decides (LIMIT 1 BY, as every
 * span read), so a re-sent span that dropped or changed its prompt attributes no longer links.
 * The keys are fixed text from PROMPT_ATTRIBUTE_KEYS; values are bound.
 */
function promptTracesSql(withVersion: boolean): string {
  return `
SELECT trace_id, min(start_time) AS first_start, arraySort(groupUniqArrayIf(assumeNotNull(version), version IS NOT NULL)) AS versions,
  count() AS span_count, count() OVER () AS total
FROM (
  SELECT trace_id, start_time, prompt_name, toUInt32OrNull(trimBoth(prompt_version)) AS version
  FROM (
    SELECT trace_id, span_id, start_time, ${promptAttribute(0)} AS prompt_name, ${promptAttribute(1)} AS prompt_version
    FROM agent_eval.spans
    WHERE project_id = {project:String}
      AND (trace_id, span_id) IN (SELECT trace_id, span_id FROM agent_eval.spans WHERE project_id = {project:String} AND (${NAMES_PROMPT}))
    ${NEWEST_ROW_PER_SPAN}
  )
  WHERE prompt_name = {name:String}
)
${withVersion ? 'WHERE version = {version:UInt32}' : ''}
GROUP BY trace_id
ORDER BY first_start DESC, trace_id DESC
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`;
}

interface LinkRow {
  trace_id: string;
  first_start: string;
  versions: Array<number | string>;
  span_count: number | string;
  total: number | string;
}

/** Traces of a project whose spans name the prompt `q.name` (and `q.version`, when given). */
export async function listPromptTraces(rows: Rows, projectId: string, q: PromptTraceQuery): Promise<PromptTraceList> {
  const list = await rows<LinkRow>(promptTracesSql(q.version !== undefined), {
    project: projectId,
    name: q.name,
    version: q.version,
    limit: q.limit,
    offset: q.offset,
  });
  let total = list.length ? Number(list[0].total) : 0;
  if (list.length === 0 && q.offset > 0) {
    // Past the last page the window count has no row to ride on.
    const all = await rows<LinkRow>(promptTracesSql(q.version !== undefined), { project: projectId, name: q.name, version: q.version, limit: 1, offset: 0 });
    total = all.length ? Number(all[0].total) : 0;
  }
  return {
    traces: list.map((r) => ({
      trace_id: r.trace_id,
      start_time: fromClickHouseTime(r.first_start),
      versions: r.versions.map(Number),
      span_count: Number(r.span_count),
    })),
    total,
    limit: q.limit,
    offset: q.offset,
  };
}
