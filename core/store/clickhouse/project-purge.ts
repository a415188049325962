import type { ClickHouseClient } from './client.js';
import { deleteRows, tablesWithColumns } from './row-mutations.js';

/**
 * Removes every row of a project from the analytical store: spans, trace summaries and headers,
 * scores, and whatever table with a `project_id` column is added later (read off
 * system.columns, so no list to keep up to date), by mutation (row-mutations.ts). Running it
 * again deletes nothing more.
 * Returns the rows each table held before (what was deleted).
 */
export async function purgeProjectAnalytics(client: ClickHouseClient, projectId: string, options: { cluster?: string } = {}): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const table of await tablesWithColumns(client, ['project_id'])) {
    const { readable, deleted: n } = await deleteRows(client, table, 'project_id = {project:String}', { project: projectId }, options.cluster);
    if (n > 0) deleted[readable] = n;
  }
  return deleted;
}
