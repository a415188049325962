import fs from 'node:fs';
import path from 'node:path';
import { round } from './lib.js';

/**
 * Where the service's CPU went, by write-path stage, from a CPU profile taken with
 * `npm run bench -- <scenario> --cpu-prof DIR` (main thread, 1 ms samples). Every sample's self
 * time goes to one stage: first by what its whole stack is part of (startup, trace derivation),
 * else by the innermost frame that belongs to a known stage. CPU of other threads (chDB's query
 * threads, V8's GC helpers, libuv) is not in a JS profile: it is the process's CPU (from /proc)
 * minus the profiled main-thread time, reported as its own line.
 * Run: `node --import tsx bench/profile-summary.ts bench/results/<scenario>-<time>.json DIR`
 * (every service of that result with a profile in DIR), or `... <file.cpuprofile> --spans N [--cpu-s S]`.
 */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Stages decided by the whole stack (any frame), in order. */
const CONTEXT: Array<[string, RegExp]> = [
  [
    'startup & shutdown (once, not per span)',
    /^(startService|openStores|migrate|runMigrations|teardown|dlopen|wrapSafe|compileSourceTextModule|compileForInternalLoader|spawnSync)@|^stop@.*runtime\/|node:internal\/modules\//,
  ],
  [
    'trace derivation (reads + traces insert)',
    /^(deriveTraces|deriveTrace|rows)@.*batch-writer|trace-derivation\.ts|trace-stats|@clickhouse\/client\/dist\/result_set\.js|^query@.*chdb-connection|^queryBindAsync@/,
  ],
];

/** Stages decided by the innermost frame that matches, in order of the frames from the leaf. */
const LEAF: Array<[string, RegExp]> = [
  ['GC', /^\(garbage collector\)@/],
  ['protobuf decode', /protobufjs\/|collector\/otlp\/(decode|decode-protobuf|any-value|scalars|proto)\.ts/],
  ['normalize', /collector\/normalize\//],
  ['JSON body parse & validation', /collector\/json\/|node_modules\/zod\/|api\/validate\.ts|core\/model\/ingest-body|co-body|koa-bodyparser|@koa\/bodyparser/],
  ['row serialization', /data_formatter\/formatter\.js|client(-common)?\/dist\/utils\/encoder\.js|core\/store\/clickhouse\/rows\.ts|rows-json|row-encode/],
  ['ClickHouse insert via chDB (main-thread part)', /node_modules\/chdb\/|chdb-connection|@clickhouse\/client/],
  ['batching & ingest glue', /collector\/(batcher|ingest|sink|admission)\.ts|runtime\/write-path\.ts/],
  [
    'HTTP/gRPC receive',
    /node:_http|node:http|node:net|node:internal\/streams|node:stream|node:zlib|node_modules\/(raw-body|koa|@koa|undici|@grpc)|collector\/otlp\/(http-receiver|grpc-receiver|read-body|response|project|index)\.ts|api\//,
  ],
  ['logging', /node_modules\/pino/],
];

const IDLE = /^\((idle)\)@/;

const THREADS: Record<string, string> = {
  ThreadPool: 'ClickHouse query execution (chDB ThreadPool threads: inserts, reads)',
  QueryPipelineEx: 'ClickHouse query pipelines (chDB QueryPipelineEx threads)',
  MergeMutate: 'ClickHouse background merges (chDB MergeMutate threads)',
  node: 'V8 platform workers (GC, compiler) + libuv pool (chDB async query entry, insert parsing): threads named node',
};

export function summarizeProfile(file: string, spans: number, processCpuS?: number, threadsCpuS?: Record<string, number>) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));

  const stages = new Map<string, number>();
  const top = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of self) {
    const frames: string[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
      const f = byId.get(x)!.callFrame;
      frames.push(`${f.functionName || '(anonymous)'}@${f.url}`);
    }
    if (IDLE.test(frames[0])) {
      idle += us;
      continue;
    }
    const stage =
      CONTEXT.find(([, re]) => frames.some((f) => re.test(f)))?.[0] ??
      frames.map((f) => LEAF.find(([, re]) => re.test(f))?.[0]).find((s) => s !== undefined) ??
      (frames[0].startsWith('(program)') ? 'other: V8 / native (program)' : 'other JS');
    stages.set(stage, (stages.get(stage) ?? 0) + us);
    const leaf = frames[0].replace(/file:\/\/.*?\/(node_modules\/)?/, '');
    top.set(`${stage} | ${leaf}`, (top.get(`${stage} | ${leaf}`) ?? 0) + us);
  }
  const busyUs = [...stages.values()].reduce((a, b) => a + b, 0);
  const perSpan = (us: number) => round(us / spans, 1);
  // Samples are wall time on the main thread (descheduled time included on a busy machine): each
  // stage gets its share of the thread's real CPU time from /proc, when known.
  const mainCpuUs = threadsCpuS?.main === undefined ? busyUs : threadsCpuS.main * 1e6;
  const scale = mainCpuUs / busyUs;
  const rows = [...stages]
    .sort((a, b) => b[1] - a[1])
    .map(([stage, us]) => ({
      stage,
      profile_ms: Math.round(us / 1000),
      cpu_ms: Math.round((us * scale) / 1000),
      us_per_span: stage.startsWith('startup') ? null : perSpan(us * scale),
    }));
  const startupUs = (rows.find((r) => r.stage.startsWith('startup'))?.cpu_ms ?? 0) * 1000;
  const off: Array<{ stage: string; cpu_ms: number; us_per_span: number }> = [];
  if (threadsCpuS) {
    // Other threads by name, from /proc: the profile cannot see them.
    const groups = new Map<string, number>();
    for (const [name, cpuS] of Object.entries(threadsCpuS)) {
      const group = THREADS[name.replace(/#\d+$/, '')] ?? `other threads: ${name}`;
      if (name !== 'main') groups.set(group, (groups.get(group) ?? 0) + cpuS);
    }
    for (const [group, cpuS] of [...groups].sort((x, y) => y[1] - x[1])) {
      if (cpuS > 0) off.push({ stage: group, cpu_ms: Math.round(cpuS * 1000), us_per_span: perSpan(cpuS * 1e6) });
    }
  } else if (processCpuS !== undefined) {
    const offMain = processCpuS * 1e6 - busyUs;
    off.push({
      stage: 'other threads (chDB query execution, GC helpers, libuv): process CPU - main thread',
      cpu_ms: Math.round(offMain / 1000),
      us_per_span: perSpan(offMain),
    });
  }
  return {
    profile: path.basename(file),
    spans,
    wall_s: round((p.endTime - p.startTime) / 1e6, 1),
    main_thread_profiled_busy_s: round(busyUs / 1e6),
    main_thread_idle_s: round(idle / 1e6),
    main_thread_cpu_s: round(mainCpuUs / 1e6),
    process_cpu_s: processCpuS ?? null,
    us_per_span_total: processCpuS === undefined ? null : perSpan(processCpuS * 1e6 - startupUs),
    stages: rows,
    /** The other threads' CPU time. */
    other_threads: off,
    /** Threads Node names `node`, in creation order (s of CPU): V8's platform workers come first, then libuv's pool. */
    node_threads_s: Object.fromEntries(Object.entries(threadsCpuS ?? {}).filter(([name, cpuS]) => name.startsWith('node#') && cpuS > 0)),
    top_functions: [...top]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([fn, us]) => ({ fn, cpu_ms: Math.round((us * scale) / 1000), us_per_span: perSpan(us * scale) })),
  };
}

/** Every object of a results file that names its service process and what it acknowledged. */
type ServiceFigures = {
  service_pid: number;
  acked_spans: number;
  server_cpu_s_lifetime?: number;
  server_threads_cpu_s_lifetime?: Record<string, number>;
  transport?: string;
};

function services(value: unknown, out: ServiceFigures[] = []) {
  if (!value || typeof value !== 'object') return out;
  const o = value as Record<string, unknown>;
  if (typeof o.service_pid === 'number' && typeof o.acked_spans === 'number') out.push(o as never);
  for (const v of Object.values(o)) services(v, out);
  return out;
}

function print(s: ReturnType<typeof summarizeProfile>, label: string) {
  console.log(
    `\n${label}: ${s.profile}, ${s.spans} spans, ${s.wall_s} s; main thread: ${s.main_thread_cpu_s} s CPU (${s.main_thread_profiled_busy_s} s sampled busy); process ${s.process_cpu_s ?? '?'} s CPU = ${s.us_per_span_total ?? '?'} µs/span (startup excluded)`,
  );
  const line = (stage: string, ms: number, us: number | null) =>
    console.log(`  ${stage.padEnd(100)} ${String(ms).padStart(7)} ms ${String(us ?? '-').padStart(7)} µs/span`);
  console.log('  main thread (profile, scaled to its CPU time):');
  for (const r of s.stages) line(r.stage, r.cpu_ms, r.us_per_span);
  console.log('  other threads (CPU time from /proc):');
  for (const r of s.other_threads) line(r.stage, r.cpu_ms, r.us_per_span);
  console.log(
    `  threads named node, in creation order (s): ${Object.entries(s.node_threads_s)
      .map(([n, c]) => `${n} ${c}`)
      .join(', ')}`,
  );
  console.log('  top self time (main thread):');
  for (const t of s.top_functions.slice(0, 15)) console.log(`    ${String(t.cpu_ms).padStart(6)} ms ${String(t.us_per_span).padStart(6)} µs/span  ${t.fn}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, second, ...rest] = process.argv.slice(2);
  const flag = (name: string) => {
    const args = [second, ...rest];
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : undefined;
  };
  if (input.endsWith('.cpuprofile')) {
    const spans = flag('--spans');
    if (!spans) throw new Error('--spans N is required with a .cpuprofile');
    print(summarizeProfile(input, spans, flag('--cpu-s')), 'profile');
  } else {
    const results = JSON.parse(fs.readFileSync(input, 'utf8')) as { runs: unknown[] };
    const summaries = [];
    for (const svc of services(results.runs)) {
      const file = path.join(second, `service-${svc.service_pid}.cpuprofile`);
      if (!fs.existsSync(file)) continue;
      const s = summarizeProfile(file, svc.acked_spans, svc.server_cpu_s_lifetime, svc.server_threads_cpu_s_lifetime);
      print(s, svc.transport ?? 'service');
      summaries.push({ transport: svc.transport, ...s });
    }
    const out = input.replace(/\.json$/, '-profile.json');
    fs.writeFileSync(out, JSON.stringify(summaries, null, 2));
    console.log(`\nprofile summary: ${out}`);
  }
}
