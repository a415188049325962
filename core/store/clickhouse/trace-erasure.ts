import type { ClickHouseClient } from './client.js';
import { DATABASE } from './client.js';
import { onCluster } from './cluster-ddl.js';

/**
 * Removing traces from the analytical store (docs/api.md, "Deleting data"): one trace, or every
 * trace of an end user or a session. The same approach as a project's purge (project-purge.ts):
 * one mutation per table that has a `trace_id` column (spans, trace summaries, scores, and any
 * table added later), `ALTER TABLE ... DELETE`, which rewrites the parts holding the rows, so the
 * data is gone from disk and not only hidden; `mutations_sync = 2` waits for every replica.
 */

/** The span and resource attributes that name a trace's end user or session (OpenTelemetry, then the names other SDKs use). */
export const SUBJECT_ATTRIBUTES = {
  user: ['user.id', 'enduser.id', 'langfuse.user.id'],
  session: ['session.id', 'gen_ai.conversation.id', 'langfuse.session.id'],
} as const;

export type Subject = keyof typeof SUBJECT_ATTRIBUTES;

/** Ids per mutation: a long list is sent as a parameter, and a mutation per chunk keeps each bounded. */
const IDS_PER_MUTATION = 1000;

/** The ids of the project's traces with a span naming this user or session in one of SUBJECT_ATTRIBUTES. */
export async function tracesOfSubject(client: ClickHouseClient, projectId: string, subject: Subject, value: string): Promise<string[]> {
  const match = SUBJECT_ATTRIBUTES[subject].flatMap((key) => [`attributes['${key}'] = {value:String}`, `resource_attributes['${key}'] = {value:String}`]).join(' OR ');
  const rs = await client.query({
    query: `SELECT DISTINCT trace_id FROM ${DATABASE}.spans WHERE project_id = {project:String} AND (${match}) ORDER BY trace_id`,
    query_params: { project: projectId, value },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ trace_id: string }>()).map((r) => r.trace_id);
}

/** Tables holding rows per trace: MergeTree tables with both `project_id` and `trace_id` (the `_local` ones on a cluster). */
async function traceTables(client: ClickHouseClient): Promise<string[]> {
  const rs = await client.query({
    query: `SELECT t.name AS name FROM system.tables t
            WHERE t.database = {db:String} AND t.engine LIKE '%MergeTree'
              AND t.name IN (SELECT table FROM system.columns WHERE database = {db:String} AND name = 'trace_id')
              AND t.name IN (SELECT table FROM system.columns WHERE database = {db:String} AND name = 'project_id')
            ORDER BY t.name`,
    query_params: { db: DATABASE },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ name: string }>()).map((t) => t.name);
}

/**
 * Deletes every row of these traces of the project; returns the rows each table held (what was
 * deleted). Running it again deletes nothing more.
 */
export async function eraseTraces(client: ClickHouseClient, projectId: string, traceIds: readonly string[], options: { cluster?: string } = {}): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  if (traceIds.length === 0) return deleted;
  for (const table of await traceTables(client)) {
    const readable = options.cluster ? table.replace(/_local$/, '') : table;
    for (let at = 0; at < traceIds.length; at += IDS_PER_MUTATION) {
      const ids = traceIds.slice(at, at + IDS_PER_MUTATION);
      const params = { project: projectId, ids };
      const counted = await client.query({
        query: `SELECT count() AS n FROM ${DATABASE}.${readable} WHERE project_id = {project:String} AND trace_id IN {ids:Array(String)}`,
        query_params: params,
        format: 'JSONEachRow',
      });
      const n = Number((await counted.json<{ n: string | number }>())[0]?.n ?? 0);
      if (n === 0 && !options.cluster) continue;
      await client.command({
        query: `ALTER TABLE ${DATABASE}.${table}${onCluster(options.cluster)} DELETE WHERE project_id = {project:String} AND trace_id IN {ids:Array(String)}`,
        query_params: params,
        clickhouse_settings: { mutations_sync: '2' },
      });
      if (n > 0) deleted[readable] = (deleted[readable] ?? 0) + n;
    }
  }
  return deleted;
}
