import type { ClickHouseClient } from './client.js';
import { DATABASE, selectRows } from './client.js';
import { onCluster } from './cluster-ddl.js';

/**
 * Removing rows from the analytical store for good: what a project's purge (project-purge.ts) and
 * a deletion of traces (trace-erasure.ts) share. One mutation per table, `ALTER TABLE ... DELETE`,
 * which rewrites the parts holding the rows, so the data is gone from disk and not only hidden as a
 * lightweight DELETE would leave it until a merge; `mutations_sync = 2` waits for every replica. On
 * a cluster the tables holding rows are the `_local` ones, each altered ON CLUSTER, and rows are
 * counted over every shard through the Distributed table of the same name.
 */

/** The MergeTree tables with every one of `columns` (read off system.columns: a table added later is included). */
export async function tablesWithColumns(client: ClickHouseClient, columns: readonly string[]): Promise<string[]> {
  const query = `SELECT t.name AS name FROM system.tables t
    WHERE t.database = {db:String} AND t.engine LIKE '%MergeTree'
      AND t.name IN (SELECT table FROM system.columns WHERE database = {db:String} AND name IN {columns:Array(String)}
                     GROUP BY table HAVING count() = length({columns:Array(String)}))
    ORDER BY t.name`;
  return (await selectRows<{ name: string }>(client, query, { db: DATABASE, columns })).map((t) => t.name);
}

/** Deletes the rows of `table` matching `where` (with `params`); returns how many it held. Running it again deletes nothing more. */
export async function deleteRows(
  client: ClickHouseClient,
  table: string,
  where: string,
  params: Record<string, unknown>,
  cluster?: string,
): Promise<{ readable: string; deleted: number }> {
  const readable = cluster ? table.replace(/_local$/, '') : table;
  const counted = await selectRows<{ n: string | number }>(client, `SELECT count() AS n FROM ${DATABASE}.${readable} WHERE ${where}`, params);
  const n = Number(counted[0]?.n ?? 0);
  if (n > 0 || cluster) {
    await client.command({
      query: `ALTER TABLE ${DATABASE}.${table}${onCluster(cluster)} DELETE WHERE ${where}`,
      query_params: params,
      clickhouse_settings: { mutations_sync: '2' },
    });
  }
  return { readable, deleted: n };
}
