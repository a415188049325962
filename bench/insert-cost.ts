import fs from 'node:fs';
import { connectClickHouse } from '../core/store/clickhouse/client.js';
import { makeDataDir } from '../test/helpers/data-dir.js';
import { median, round } from './lib.js';
import { JSON_ROWS } from '../core/store/clickhouse/rows.js';

/** Table engines compared: the part-writing MergeTree, with and without the fsyncs our tables ask for, against a Memory table (no files). */
const ENGINES = {
  merge_tree: 'ENGINE = MergeTree ORDER BY x',
  merge_tree_fsync: 'ENGINE = MergeTree ORDER BY x SETTINGS fsync_after_insert = 1, fsync_part_directory = 1',
  memory: 'ENGINE = Memory',
} as const;

/**
 * The fixed cost of one INSERT in chDB, in this process: `inserts` one-row JSONEachRow inserts
 * through `rawInsert` into a two-column table of each engine, interleaved by round; wall and CPU
 * (`process.cpuUsage`, so chDB's threads count) per insert, medians over rounds. Also counts the
 * files a MergeTree part is made of, since creating them is where the filesystem's cost shows
 * (docs/benchmarks.md, "Inode churn"). Run: `npm run bench -- insert-cost [--runs N]`.
 */
export async function benchInsertCost(opts: { inserts: number; rounds: number }) {
  const dir = makeDataDir('agent-eval-bench-insert-');
  const ch = await connectClickHouse({ dataDir: dir });
  try {
    for (const [name, engine] of Object.entries(ENGINES))
      await ch.client.command({ query: `CREATE TABLE IF NOT EXISTS agent_eval.${name} (x UInt8, s String) ${engine}` });
    const samples: Record<string, { wall: number[]; cpu: number[] }> = {};
    for (let r = 0; r < opts.rounds; r++) {
      for (const name of Object.keys(ENGINES)) {
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        for (let i = 0; i < opts.inserts; i++) await ch.insertRows(`agent_eval.${name}`, JSON_ROWS, Buffer.from(`{"x":${i % 200},"s":"a"}`));
        const cpu = process.cpuUsage(cpu0);
        const s = (samples[name] ??= { wall: [], cpu: [] });
        s.wall.push((performance.now() - t0) / opts.inserts);
        s.cpu.push((cpu.user + cpu.system) / 1000 / opts.inserts);
      }
    }
    const parts = await ch.client.query({
      query: `SELECT path FROM system.parts WHERE database = 'agent_eval' AND table = 'merge_tree' AND active LIMIT 1`,
      format: 'JSONEachRow',
    });
    const [part] = await parts.json<{ path: string }>();
    const perEngine = Object.fromEntries(
      Object.entries(samples).map(([name, s]) => [name, { wall_ms_per_insert: round(median(s.wall), 2), cpu_ms_per_insert: round(median(s.cpu), 2) }]),
    );
    return {
      phase: 'insert-cost',
      inserts_per_round: opts.inserts,
      rounds: opts.rounds,
      files_per_part: part ? fs.readdirSync(part.path).length : null,
      ...perEngine,
    };
  } finally {
    // The data dir goes with the invocation's (bench/run.ts): removed between runs, it would slow the next run's inserts.
    await ch.close();
  }
}
