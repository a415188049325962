import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { ConfigError } from '../../core/errors.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { SHARDING_KEY, clusterMigrationStatements, clusterStatements, emptyClusterSchema } from '../../core/store/clickhouse/cluster-ddl.js';
import { applyRetention, clickhouseMigrationTarget, migrationStatements } from '../../core/store/clickhouse/migration-target.js';
import { readMigrations } from '../../core/store/migrations.js';
import { makeDataDir } from '../helpers/data-dir.js';

/**
 * The cluster form of the ClickHouse migrations (CLICKHOUSE_CLUSTER). No ClickHouse server runs
 * on these machines, so the DDL is generated and checked: its shape here, its syntax by the real
 * ClickHouse parser of chDB (formatQuery), and the single-node form stays what it was.
 */
const CLUSTER = 'agent_eval_cluster';
const migrations = readMigrations('clickhouse');
const clusterForm = migrations.map((m) => ({ id: m.id, statements: clusterMigrationStatements(m, CLUSTER, migrations) }));
const all = clusterForm.flatMap((m) => m.statements);

/** A client that records the SQL it is given and answers reads with `rows`. */
function recordingClient(rows: unknown[] = []): { client: ClickHouseClient; sql: string[] } {
  const sql: string[] = [];
  const client = {
    command: ({ query }: { query: string }) => Promise.resolve(void sql.push(query)),
    query: ({ query }: { query: string }) => {
      sql.push(query);
      return Promise.resolve({ json: () => Promise.resolve(rows) });
    },
    insert: () => Promise.resolve(),
  };
  return { client: client as unknown as ClickHouseClient, sql };
}

describe('the single-node form (no CLICKHOUSE_CLUSTER)', () => {
  it('runs every migration file as written, byte for byte', async () => {
    for (const m of migrations) {
      expect(migrationStatements(m)).toBe(m.statements);
      const { client, sql } = recordingClient();
      await clickhouseMigrationTarget(client).apply(m);
      expect(sql).toEqual(m.statements);
    }
  });

  it('keeps the ledger and the TTL statements of one node', async () => {
    const { client, sql } = recordingClient([
      { name: 'spans', engine_full: 'ReplacingMergeTree ... toIntervalDay(90)' },
      { name: 'scores', engine_full: 'toIntervalDay(90)' },
    ]);
    await clickhouseMigrationTarget(client).applied();
    expect(sql[0]).toBe(
      "CREATE TABLE IF NOT EXISTS agent_eval.schema_migrations (id String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = MergeTree ORDER BY id",
    );
    sql.length = 0;
    await applyRetention(client, 30);
    expect(sql.slice(1)).toEqual([
      'ALTER TABLE agent_eval.spans MODIFY TTL toDateTime(start_time) + INTERVAL 30 DAY',
      'ALTER TABLE agent_eval.scores MODIFY TTL toDateTime(created_at) + INTERVAL 30 DAY',
    ]);
  });
});

describe('the cluster form', () => {
  it('creates every table ON CLUSTER as a Replicated engine with the shard and replica macros', () => {
    const creates = all.filter((s) => s.startsWith('CREATE TABLE') && !s.includes('ENGINE = Distributed') && !s.includes('ENGINE = Null'));
    expect(creates.map((s) => /agent_eval\.(\w+)/.exec(s)?.[1])).toEqual([
      'spans_local',
      'trace_headers_local',
      'traces_local',
      'scores_local',
      'trace_stats_local',
    ]);
    for (const s of creates) {
      expect(s).toContain(`ON CLUSTER '${CLUSTER}'`);
      expect(s).toMatch(/ENGINE = Replicated(Replacing|Aggregating)MergeTree\('\/clickhouse\/tables\/\{shard\}\/agent_eval\/\w+_local', '\{replica\}'/);
    }
    const spans = creates[0];
    expect(spans).toContain("ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/agent_eval/spans_local', '{replica}', ingested_at)");
    // Everything else of the table is the single-node DDL's: columns, order, TTL, settings.
    const single = migrations[0].statements[0];
    expect(spans.replace(/^.*\n/, '').replace(/ENGINE = .*\n/, '')).toBe(single.replace(/^.*\n/, '').replace(/ENGINE = .*\n/, ''));
  });

  it('puts a Distributed table under each name the queries use, sharded by project and trace', () => {
    for (const name of ['spans', 'scores', 'trace_stats', 'trace_stats_input']) {
      expect(all).toContain(
        `CREATE TABLE IF NOT EXISTS agent_eval.${name} ON CLUSTER '${CLUSTER}' AS agent_eval.${name}_local\nENGINE = Distributed('${CLUSTER}', agent_eval, ${name}_local, ${SHARDING_KEY})`,
      );
    }
    expect(SHARDING_KEY).toBe('cityHash64(project_id, trace_id)');
    expect(all).toContain(
      `CREATE TABLE IF NOT EXISTS agent_eval.trace_stats_input_local ON CLUSTER '${CLUSTER}'\n${migrations[1].statements[1].split('\n').slice(1).join('\n')}`,
    );
  });

  it('folds trace summaries on each shard, from its local input to its local states', () => {
    const views = all.filter((s) => /^(CREATE MATERIALIZED VIEW|ALTER TABLE agent_eval\.trace_stats_from_input)/.test(s));
    expect(views.length).toBeGreaterThanOrEqual(3);
    for (const v of views) {
      expect(v).toContain(`ON CLUSTER '${CLUSTER}'`);
      expect(v).toMatch(/FROM agent_eval\.(trace_stats_input|write_rows)_local\n/);
      expect(v).not.toMatch(/agent_eval\.(trace_stats_input|write_rows|spans|trace_stats)\b(?!_local)/);
    }
    expect(views[0]).toContain('TO agent_eval.trace_stats_local AS');
    // A write's one insert (migration 007): rows placed by shard, then taken apart on the shard.
    expect(all).toContain(
      `CREATE TABLE IF NOT EXISTS agent_eval.write_rows ON CLUSTER '${CLUSTER}' AS agent_eval.write_rows_local\nENGINE = Distributed('${CLUSTER}', agent_eval, write_rows_local, cityHash64(project_id, trace_id))`,
    );
    expect(views.find((v) => v.includes('spans_from_writes'))).toContain('TO agent_eval.spans_local AS');
    expect(views.find((v) => v.includes('trace_stats_from_writes'))).toContain('TO agent_eval.trace_stats_input_local AS');
    // Migration 008: the summaries fold straight into the shard's states, then 007's view goes on every node.
    expect(views.find((v) => v.includes('trace_stats_fold_writes'))).toContain('TO agent_eval.trace_stats_local AS');
    expect(all).toContain(`DROP VIEW IF EXISTS agent_eval.trace_stats_from_writes ON CLUSTER '${CLUSTER}' SYNC`);
    expect(all.indexOf(`DROP VIEW IF EXISTS agent_eval.trace_stats_from_writes ON CLUSTER '${CLUSTER}' SYNC`)).toBeGreaterThan(
      all.findIndex((s) => s.includes('trace_stats_fold_writes')),
    );
  });

  it('alters columns on both tables, settings and TTL on the local one, and drops both', () => {
    const m3 = clusterForm.find((m) => m.id === '003_score_attributes');
    if (m3) {
      expect(m3.statements).toEqual([
        `ALTER TABLE agent_eval.scores_local ON CLUSTER '${CLUSTER}' ADD COLUMN IF NOT EXISTS attributes Map(LowCardinality(String), String) CODEC(ZSTD(1))`,
        `ALTER TABLE agent_eval.scores ON CLUSTER '${CLUSTER}' ADD COLUMN IF NOT EXISTS attributes Map(LowCardinality(String), String) CODEC(ZSTD(1))`,
      ]);
    }
    expect(all).toContain(`ALTER TABLE agent_eval.spans_local ON CLUSTER '${CLUSTER}' MODIFY SETTING merge_selector_base = 50`);
    expect(all.filter((s) => s.includes('MODIFY SETTING') && !s.includes('_local'))).toEqual([]);
    expect(all).toContain(`DROP TABLE IF EXISTS agent_eval.traces ON CLUSTER '${CLUSTER}' SYNC`);
    expect(all).toContain(`DROP TABLE IF EXISTS agent_eval.traces_local ON CLUSTER '${CLUSTER}' SYNC`);
  });

  it('runs every statement but the backfills ON CLUSTER, and the backfills through the Distributed tables', () => {
    for (const s of all) {
      if (s.startsWith('INSERT INTO')) expect(s).toMatch(/^INSERT INTO agent_eval\.trace_stats_input \(/);
      else expect(s, s.slice(0, 80)).toContain(`ON CLUSTER '${CLUSTER}'`);
    }
  });

  it('refuses a statement it has no cluster form for, rather than run it on one node', () => {
    expect(() => clusterStatements(['OPTIMIZE TABLE agent_eval.spans FINAL'], CLUSTER, emptyClusterSchema())).toThrow(/no cluster form/);
    expect(() =>
      clusterStatements(['CREATE TABLE IF NOT EXISTS agent_eval.t\n(id String)\nENGINE = MergeTree ORDER BY id'], CLUSTER, emptyClusterSchema()),
    ).toThrow(/no shard/);
    expect(() => clusterStatements([], "x'; DROP", emptyClusterSchema())).toThrow(/plain cluster name/);
  });

  it('replicates the ledger to every node and sets TTL on the local tables', async () => {
    const { client, sql } = recordingClient([
      { name: 'spans_local', engine_full: 'toIntervalDay(90)' },
      { name: 'trace_stats_local', engine_full: 'toIntervalDay(90)' },
    ]);
    await clickhouseMigrationTarget(client, { cluster: CLUSTER }).applied();
    expect(sql[0]).toBe(`CREATE DATABASE IF NOT EXISTS agent_eval ON CLUSTER '${CLUSTER}'`);
    expect(sql[1]).toContain(`agent_eval.schema_migrations ON CLUSTER '${CLUSTER}'`);
    expect(sql[1]).toContain("ReplicatedMergeTree('/clickhouse/tables/all/agent_eval/schema_migrations', '{shard}-{replica}')");
    sql.length = 0;
    await applyRetention(client, 7, { cluster: CLUSTER });
    expect(sql[0]).toContain('system.tables');
    expect(sql.slice(1)).toEqual([
      `ALTER TABLE agent_eval.spans_local ON CLUSTER '${CLUSTER}' MODIFY TTL toDateTime(start_time) + INTERVAL 7 DAY`,
      `ALTER TABLE agent_eval.trace_stats_local ON CLUSTER '${CLUSTER}' MODIFY TTL toDateTime(min_start) + INTERVAL 7 DAY`,
    ]);
    sql.length = 0;
    await clickhouseMigrationTarget(client, { cluster: CLUSTER }).apply(migrations[0]);
    expect(sql).toEqual(clusterForm[0].statements);
  });

  it('is chosen by CLICKHOUSE_CLUSTER, which needs a ClickHouse server', () => {
    expect(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'main' }).clickhouseCluster).toBe('main');
    expect(loadConfig({}).clickhouseCluster).toBeUndefined();
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'main' })).toThrow(ConfigError);
    expect(() => loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'a b' })).toThrow(/cluster name/);
  });
});

describe('the cluster form, parsed by ClickHouse itself (chDB)', () => {
  let ch: ClickHouse;
  beforeAll(async () => {
    ch = await connectClickHouse({ dataDir: makeDataDir() });
  });
  afterAll(async () => {
    await ch?.close();
  });

  it('is valid ClickHouse SQL, statement by statement', async () => {
    for (const statement of all) {
      const rs = await ch.client.query({ query: 'SELECT formatQuery({q:String}) AS f', query_params: { q: statement }, format: 'JSONEachRow' });
      const [{ f }] = await rs.json<{ f: string }>();
      expect(f.length, statement.slice(0, 80)).toBeGreaterThan(0);
    }
  });
});
