import type { ClickHouseClient } from './client.js';
import { DATABASE, selectRows } from './client.js';
import { deleteRows, tablesWithColumns } from './row-mutations.js';
import { purgeProjectAnalytics } from './project-purge.js';
import type { Subject, TraceErasure } from '../trace-erasure.js';
import { SESSION_ID_KEYS, USER_ID_KEYS } from '../../model/trace-session-ids.js';

/**
 * Removing traces from the analytical store (docs/api.md, "Deleting data"): one trace, or every
 * trace of an end user or a session, by mutation like a project's purge (row-mutations.ts).
 */

/**
 * The span and resource attributes that name a trace's end user or session: the keys sessions are
 * read from (core/model/trace-session-ids.ts). Erasure takes a trace where any of them names the
 * subject, in the span's or the resource's attributes, not only the one the trace is listed under.
 */
export const SUBJECT_ATTRIBUTES: Readonly<Record<Subject, readonly string[]>> = {
  user: USER_ID_KEYS,
  session: SESSION_ID_KEYS,
};

/** Ids per mutation: a long list is sent as a parameter, and a mutation per chunk keeps each bounded. */
const IDS_PER_MUTATION = 1000;

/** The ids of the project's traces with a span naming this user or session in one of SUBJECT_ATTRIBUTES. */
export async function tracesOfSubject(client: ClickHouseClient, projectId: string, subject: Subject, value: string): Promise<string[]> {
  const match = SUBJECT_ATTRIBUTES[subject]
    .flatMap((key) => [`attributes['${key}'] = {value:String}`, `resource_attributes['${key}'] = {value:String}`])
    .join(' OR ');
  const query = `SELECT DISTINCT trace_id FROM ${DATABASE}.spans WHERE project_id = {project:String} AND (${match}) ORDER BY trace_id`;
  return (await selectRows<{ trace_id: string }>(client, query, { project: projectId, value })).map((r) => r.trace_id);
}

/**
 * Deletes every row of these traces of the project (every MergeTree table with `project_id` and
 * `trace_id`); returns the rows each table held (what was deleted). Running it again deletes
 * nothing more.
 */
export async function eraseTraces(
  client: ClickHouseClient,
  projectId: string,
  traceIds: readonly string[],
  options: { cluster?: string } = {},
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  if (traceIds.length === 0) return deleted;
  for (const table of await tablesWithColumns(client, ['project_id', 'trace_id'])) {
    for (let at = 0; at < traceIds.length; at += IDS_PER_MUTATION) {
      const ids = traceIds.slice(at, at + IDS_PER_MUTATION);
      const { readable, deleted: n } = await deleteRows(
        client,
        table,
        'project_id = {project:String} AND trace_id IN {ids:Array(String)}',
        { project: projectId, ids },
        options.cluster,
      );
      if (n > 0) deleted[readable] = (deleted[readable] ?? 0) + n;
    }
  }
  return deleted;
}

/** The analytical store's erasure (core/store/trace-erasure.ts) over this client. */
export function createTraceErasure(client: ClickHouseClient, options: { cluster?: string } = {}): TraceErasure {
  return {
    tracesOf: (projectId, subject, value) => tracesOfSubject(client, projectId, subject, value),
    eraseTraces: (projectId, traceIds) => eraseTraces(client, projectId, traceIds, options),
    purgeProject: (projectId) => purgeProjectAnalytics(client, projectId, options),
  };
}
