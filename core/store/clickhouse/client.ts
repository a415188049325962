import fs from 'node:fs';
import path from 'node:path';
import { createClient, type ClickHouseClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';

export type { ClickHouseClient };

/**
 * Every table lives in this database, named in the SQL itself: chDB's connection ignores the
 * client's `database` option, and one fixed name keeps the SQL identical on both forms.
 */
export const DATABASE = 'agent_eval';

export interface ClickHouseTarget {
  /** HTTP ClickHouse server; when absent, chDB runs in-process with data under `dataDir`. */
  url?: string;
  dataDir: string;
}

const SETTINGS = { date_time_input_format: 'best_effort' } as const;

/**
 * One `@clickhouse/client` for both forms: an HTTP server (`CLICKHOUSE_URL`) or chDB in-process.
 * The SQL is the same; only the connection differs (DESIGN: embedded by default, distributed when outgrown).
 */
export async function connectClickHouse(target: ClickHouseTarget): Promise<ClickHouseClient> {
  let client: ClickHouseClient;
  if (target.url) {
    client = createClient({ url: target.url, request_timeout: 60_000, clickhouse_settings: SETTINGS });
  } else {
    const dir = path.join(target.dataDir, 'clickhouse');
    fs.mkdirSync(dir, { recursive: true });
    // chdb types its Connection against @clickhouse/client-common, which @clickhouse/client now
    // bundles under another path; the shapes are identical, the declarations are not.
    const connection = createChdbConnection({ path: dir }) as unknown as ClickHouseClientConfigOptions['connection'];
    client = createClient({ connection, clickhouse_settings: SETTINGS });
  }
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${DATABASE}` });
  return client;
}
