import { readMigrations, type Migration } from '../migrations.js';
import { DATABASE } from './client.js';

/**
 * The cluster form of the ClickHouse migrations (`CLICKHOUSE_CLUSTER`, docs/deployment.md).
 *
 * The migration files hold the single-node DDL, which runs as written when no cluster is set.
 * On a cluster each statement is rewritten, so the files stay the one source of the schema and
 * the queries stay the same:
 * - a table `agent_eval.X` becomes `agent_eval.X_local` on every node (`ON CLUSTER`), its engine
 *   the Replicated form of the same one (`{shard}` / `{replica}` macros), plus a Distributed
 *   table `agent_eval.X` over it that every read and insert uses, sharded by
 *   `cityHash64(project_id, trace_id)`: all rows of a trace (its spans, its summary, its scores)
 *   live on one shard, so per-trace reads and the per-key deduplication of ReplacingMergeTree and
 *   of the summary states work within a shard exactly as on one node;
 * - a Null table (what a write adds to trace summaries) also gets a local table and a
 *   Distributed one, and a materialized view reads and writes the local tables of its shard;
 * - ALTERs of columns apply to both tables, other ALTERs (settings, TTL) to the local one; DROPs
 *   drop both.
 * A statement of another kind has no cluster form yet: `clusterStatements` throws rather than run
 * it on one node only.
 */

/** Every table has these columns; rows are placed on a shard by them. */
export const SHARDING_KEY = 'cityHash64(project_id, trace_id)';

const LOCAL_SUFFIX = '_local';
const NAME = String.raw`${DATABASE}\.(\w+)`;
const CREATE_TABLE = new RegExp(String.raw`^CREATE TABLE IF NOT EXISTS ${NAME}\s*\n`);
const ENGINE = /\bENGINE = (\w*)MergeTree(?:\(([^)]*)\))?|\bENGINE = Null\b/;
const CREATE_VIEW = new RegExp(String.raw`^CREATE MATERIALIZED VIEW IF NOT EXISTS ${NAME} `);
const ALTER = new RegExp(String.raw`^ALTER TABLE ${NAME} `);
const COLUMN_ALTER = /^(?:ADD|DROP|MODIFY|RENAME|CLEAR|COMMENT) COLUMN\b/;
const DROP = new RegExp(String.raw`^DROP (TABLE|VIEW) IF EXISTS ${NAME}\s*$`);
const INSERT_SELECT = new RegExp(String.raw`^INSERT INTO ${NAME}\b`);

/** Backquoted cluster name, as ON CLUSTER and Distributed() take it. */
function quoteCluster(cluster: string): string {
  if (!/^[\w.-]+$/.test(cluster)) throw new Error(`CLICKHOUSE_CLUSTER must be a plain cluster name, not '${cluster}'`);
  return `'${cluster}'`;
}

/** Replaces `agent_eval.X` with `agent_eval.X_local` for the sharded tables. */
function toLocal(sql: string, sharded: ReadonlySet<string>): string {
  return sql.replace(new RegExp(`\\b${NAME}\\b`, 'g'), (whole, name: string) => (sharded.has(name) ? `${DATABASE}.${name}${LOCAL_SUFFIX}` : whole));
}

/** The tables and views that earlier statements created (their cluster form decides later ones'). */
export interface ClusterSchema {
  sharded: Set<string>;
  views: Set<string>;
}

export function emptyClusterSchema(): ClusterSchema {
  return { sharded: new Set(), views: new Set() };
}

/**
 * The cluster form of one migration's statements. `schema` holds what earlier statements (of
 * this and earlier migrations) created and gains what this migration creates, so call it on the
 * migrations in order with one schema.
 */
export function clusterStatements(statements: readonly string[], cluster: string, schema: ClusterSchema): string[] {
  const { sharded, views } = schema;
  const on = `ON CLUSTER ${quoteCluster(cluster)}`;
  const out: string[] = [];
  for (const statement of statements) {
    const create = CREATE_TABLE.exec(statement);
    if (create) {
      const name = create[1];
      const engine = ENGINE.exec(statement);
      if (!engine) throw new Error(`no cluster form for the engine of ${DATABASE}.${name}`);
      if (!/\bproject_id\b/.test(statement) || !/\btrace_id\b/.test(statement)) {
        throw new Error(`${DATABASE}.${name} lacks project_id or trace_id: no shard for its rows`);
      }
      const local = `${name}${LOCAL_SUFFIX}`;
      let body = statement.replace(create[0], `CREATE TABLE IF NOT EXISTS ${DATABASE}.${local} ${on}\n`);
      if (engine[0] !== 'ENGINE = Null') {
        const args = [`'/clickhouse/tables/{shard}/${DATABASE}/${local}'`, `'{replica}'`];
        if (engine[2]?.trim()) args.push(engine[2].trim());
        body = body.replace(engine[0], `ENGINE = Replicated${engine[1]}MergeTree(${args.join(', ')})`);
      }
      out.push(body);
      out.push(
        `CREATE TABLE IF NOT EXISTS ${DATABASE}.${name} ${on} AS ${DATABASE}.${local}\nENGINE = Distributed(${quoteCluster(cluster)}, ${DATABASE}, ${local}, ${SHARDING_KEY})`,
      );
      sharded.add(name);
      continue;
    }
    const view = CREATE_VIEW.exec(statement);
    if (view) {
      // A view runs where its source block is inserted: on the shard, from local table to local table.
      out.push(toLocal(statement.replace(view[0], `CREATE MATERIALIZED VIEW IF NOT EXISTS ${DATABASE}.${view[1]} ${on} `), sharded));
      views.add(view[1]);
      continue;
    }
    const alter = ALTER.exec(statement);
    if (alter && views.has(alter[1])) {
      // MODIFY QUERY of a view: its new SELECT reads the local tables too.
      out.push(toLocal(`ALTER TABLE ${DATABASE}.${alter[1]} ${on} ${statement.slice(alter[0].length)}`, sharded));
      continue;
    }
    if (alter && sharded.has(alter[1])) {
      const rest = statement.slice(alter[0].length);
      out.push(`ALTER TABLE ${DATABASE}.${alter[1]}${LOCAL_SUFFIX} ${on} ${rest}`);
      // The Distributed table mirrors the columns of the local one.
      if (COLUMN_ALTER.test(rest)) out.push(`ALTER TABLE ${DATABASE}.${alter[1]} ${on} ${rest}`);
      continue;
    }
    const drop = DROP.exec(statement);
    if (drop) {
      const [, kind, name] = drop;
      // Tables of earlier migrations were created sharded; a table never created drops as a no-op.
      out.push(`DROP ${kind} IF EXISTS ${DATABASE}.${name} ${on} SYNC`);
      if (kind === 'TABLE') out.push(`DROP TABLE IF EXISTS ${DATABASE}.${name}${LOCAL_SUFFIX} ${on} SYNC`);
      sharded.delete(name);
      views.delete(name);
      continue;
    }
    // INSERT ... SELECT (backfills) reads and writes the Distributed tables, as the queries do.
    if (INSERT_SELECT.test(statement)) {
      out.push(statement);
      continue;
    }
    throw new Error(`no cluster form for this migration statement (core/store/clickhouse/cluster-ddl.ts): ${statement.slice(0, 120)}`);
  }
  return out;
}

/** The ledger of applied migrations: one replicated table every node of the cluster holds. */
export function clusterLedgerDdl(ledger: string, cluster: string): string {
  const name = ledger.replace(`${DATABASE}.`, '');
  return (
    `CREATE TABLE IF NOT EXISTS ${ledger} ON CLUSTER ${quoteCluster(cluster)} (id String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ` +
    // One replica set across all shards: the path has no {shard}, the replica name both macros.
    `ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/${DATABASE}/${name}', '{shard}-{replica}') ORDER BY id`
  );
}

/** The table that holds a sharded table's rows (and its TTL) on each node. */
export function localTable(name: string, cluster: string | undefined): string {
  return cluster ? `${name}${LOCAL_SUFFIX}` : name;
}

/** `ON CLUSTER 'c'` when a cluster is set, else nothing. */
export function onCluster(cluster: string | undefined): string {
  return cluster ? ` ON CLUSTER ${quoteCluster(cluster)}` : '';
}

/**
 * The cluster form of one migration, given every migration in order (the tables of the earlier
 * ones decide what its ALTERs and DROPs touch).
 */
export function clusterMigrationStatements(migration: Migration, cluster: string, all: readonly Migration[] = readMigrations('clickhouse')): string[] {
  const schema = emptyClusterSchema();
  for (const earlier of all) {
    if (earlier.id >= migration.id) break;
    clusterStatements(earlier.statements, cluster, schema);
  }
  return clusterStatements(migration.statements, cluster, schema);
}
