import type { ClickHouseClient } from './client.js';
import { DATABASE } from './client.js';
import { onCluster } from './cluster-ddl.js';

/**
 * Removes every row of a project from the analytical store: spans, trace summaries and headers,
 * scores, and whatever table with a `project_id` column is added later (read off
 * system.columns, so no list to keep up to date). One mutation per table, `ALTER TABLE ... DELETE`,
 * which rewrites the parts that hold the project's rows: the data is gone from disk, not only
 * hidden as a lightweight DELETE would leave it until a merge. `mutations_sync = 2` waits until
 * every replica has done it. On a cluster the tables holding rows are the `_local` ones (the
 * Distributed tables hold none), each altered ON CLUSTER. Running it again deletes nothing more.
 * Returns the rows each table held before (what was deleted).
 */
export async function purgeProjectAnalytics(client: ClickHouseClient, projectId: string, options: { cluster?: string } = {}): Promise<Record<string, number>> {
  const rs = await client.query({
    query: `SELECT t.name AS name FROM system.tables t
            WHERE t.database = {db:String} AND t.engine LIKE '%MergeTree'
              AND t.name IN (SELECT table FROM system.columns WHERE database = {db:String} AND name = 'project_id')
            ORDER BY t.name`,
    query_params: { db: DATABASE },
    format: 'JSONEachRow',
  });
  const tables = (await rs.json<{ name: string }>()).map((t) => t.name);
  const deleted: Record<string, number> = {};
  for (const table of tables) {
    // On a cluster, counted over every shard through the Distributed table of the same name.
    const readable = options.cluster ? table.replace(/_local$/, '') : table;
    const counted = await client.query({
      query: `SELECT count() AS n FROM ${DATABASE}.${readable} WHERE project_id = {project:String}`,
      query_params: { project: projectId },
      format: 'JSONEachRow',
    });
    const n = Number((await counted.json<{ n: string | number }>())[0]?.n ?? 0);
    if (n === 0 && !options.cluster) continue;
    await client.command({
      query: `ALTER TABLE ${DATABASE}.${table}${onCluster(options.cluster)} DELETE WHERE project_id = {project:String}`,
      query_params: { project: projectId },
      clickhouse_settings: { mutations_sync: '2' },
    });
    if (n > 0) deleted[readable] = n;
  }
  return deleted;
}
