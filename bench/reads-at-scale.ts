import { connectClickHouse } from '../core/store/clickhouse/client.js';
import { makeDataDir } from '../test/helpers/data-dir.js';
import { getJson, round, summarize } from './lib.js';
import { seedBySql, seededTraceIdSql } from './seed-by-sql.js';
import { startBenchService } from './service.js';

/**
 * Reads at scale (issue 33): `spans` agent-shaped spans written by ClickHouse itself
 * (seed-by-sql.ts) into a service's store, then the reads a user makes, through the HTTP API of
 * the service restarted on that store: a trace by id (random traces), the traces list's first
 * page with no filter and with each filter, the sessions list, a session's traces. Targets: trace
 * by id p95 <= 20 ms, list first page p95 <= 50 ms at 10M spans.
 * Run: `npm run bench -- reads-at-scale [--spans N] [--spans-per-trace N] [--text-bytes N] [--reads N]`.
 */
export interface ReadsAtScaleOptions {
  spans: number;
  spansPerTrace: number;
  textBytes: number;
  reads: number;
}

const DAY = 86_400_000;

export async function benchReadsAtScale(opts: ReadsAtScaleOptions) {
  const dataDir = makeDataDir('agent-eval-bench-reads-');
  // A first start makes the project and runs the migrations; the seed writes while it is stopped.
  const first = await startBenchService({}, dataDir);
  const project = first.projectId;
  await first.stop();

  const traces = Math.ceil(opts.spans / opts.spansPerTrace);
  const now = Date.now();
  const ch = await connectClickHouse({ dataDir });
  const seedStart = performance.now();
  let ids: string[];
  try {
    await seedBySql(ch.client, { project, traces, spansPerTrace: opts.spansPerTrace, textBytes: opts.textBytes, spreadMs: 7 * DAY, now }, (n) =>
      console.log(JSON.stringify({ phase: 'seed', traces: n, seconds: round((performance.now() - seedStart) / 1000, 1) })),
    );
    ids = [];
    for (let i = 0; i < opts.reads; i++) {
      const rs = await ch.client.query({ query: seededTraceIdSql(Math.floor(Math.random() * traces)), format: 'JSONEachRow' });
      ids.push((await rs.json<{ id: string }>())[0].id);
    }
  } finally {
    await ch.close();
  }
  const seed = { traces, spans: traces * opts.spansPerTrace, seconds: round((performance.now() - seedStart) / 1000, 1) };

  const svc = await startBenchService({}, dataDir);
  try {
    const time = async (path: string, expectSpans = false) => {
      const t = performance.now();
      const res = await getJson(`${svc.apiUrl}${path}`, svc.headers);
      const ms = performance.now() - t;
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      if (expectSpans && !((res.body as { spans?: unknown[] }).spans?.length === opts.spansPerTrace)) throw new Error(`${path}: not the whole trace`);
      return ms;
    };
    const cold = { trace_by_id_ms: round(await time(`/api/traces/${ids[0]}`, true)), list_ms: round(await time('/api/traces?limit=50')) };
    const byId: number[] = [];
    for (const id of ids) byId.push(await time(`/api/traces/${id}`, true));
    const lists: Record<string, string> = {
      none: '',
      status_error: '&status=error',
      name: '&name=support-agent-7',
      model: '&model=claude-sonnet-4',
      session: '&session_id=session-1234',
      user: '&user_id=user-7',
      min_duration: '&min_duration_ms=900',
      last_hour: `&start_time=${new Date(now - 3_600_000).toISOString()}`,
    };
    const list: Record<string, ReturnType<typeof summarize>> = {};
    for (const [name, q] of Object.entries(lists)) {
      const ms: number[] = [];
      for (let i = 0; i < Math.max(20, opts.reads / 5); i++) ms.push(await time(`/api/traces?limit=50${q}`));
      list[name] = summarize(ms);
    }
    const sessions: number[] = [];
    for (let i = 0; i < Math.max(20, opts.reads / 5); i++) sessions.push(await time('/api/sessions?limit=50'));
    const result = { seed, cold, trace_by_id_ms: summarize(byId), list_first_page_ms: list, session_list_ms: summarize(sessions) };
    console.log(JSON.stringify({ phase: 'reads', ...result }));
    return result;
  } finally {
    await svc.stop();
  }
}
