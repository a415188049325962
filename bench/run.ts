import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { medianOf, numericLeaves, speedProbeMs, waitQuiet } from './lib.js';
import type { OtlpTransport } from './otlp.js';
import { parseTransport } from './senders.js';
import { serviceEnv } from './service.js';
import { useRunTmpDir } from '../test/helpers/data-dir.js';
import { ensureTemporalCli } from '../test/helpers/tools.js';
import type { WritePathKind } from './write-path.js';

/**
 * Every temporary file of this invocation (the services' data dirs) goes under one directory,
 * removed when the invocation ends, not between runs: on a filesystem without a journal (this
 * machine's ext4) creating a file scans past every inode deleted in the last minutes of its
 * group, so removing a finished run's data dir (tens of thousands of files) made the next run's
 * inserts up to 5x as expensive (docs/benchmarks.md, "Inode churn"). `--keep-data` keeps it
 * (its path is printed): to look at a run's data, or to run invocations back to back.
 */
function useInvocationTmpDir(keep: boolean): void {
  const dir = useRunTmpDir('agent-eval-bench-run-');
  process.on('exit', () => (keep ? console.log(`data kept (--keep-data): ${dir}`) : fs.rmSync(dir, { recursive: true, force: true })));
}

/**
 * `npm run bench -- <scenario> [options]`: runs a scenario `--runs` times (default 3), each run
 * against a fresh service, prints every run and the medians, and writes
 * bench/results/<scenario>-<time>.json. Scenarios and their options: docs/benchmarks.md.
 */
const { positionals, values: v } = parseArgs({
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string' },
    concurrency: { type: 'string' },
    'spans-per-payload': { type: 'string', default: '500' },
    'spans-per-trace': { type: 'string', default: '10' },
    'span-size': { type: 'string', default: '2k' },
    transport: { type: 'string', default: 'http' },
    rate: { type: 'string' },
    fraction: { type: 'string', default: '0.5' },
    factor: { type: 'string', default: '10' },
    'burst-seconds': { type: 'string' },
    verify: { type: 'string', default: '1000' },
    'total-spans': { type: 'string' },
    'batch-spans': { type: 'string', default: '1000' },
    paths: { type: 'string' },
    probes: { type: 'string' },
    'service-env': { type: 'string' },
    'cpu-prof': { type: 'string' },
    'wait-quiet': { type: 'string', default: '0' },
    'keep-data': { type: 'boolean', default: false },
    'max-noise': { type: 'string' },
    'max-retries': { type: 'string', default: '3' },
    cases: { type: 'string' },
    'poll-ms': { type: 'string', default: '50' },
    traces: { type: 'string' },
    spans: { type: 'string' },
  },
});
const scenario = positionals[0] ?? 'otlp';
const quick = v.quick;
const num = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value));
const seconds = (full: number, short: number) => num(v.seconds, quick ? short : full);
const shape = { poolSize: 16, spansPerPayload: num(v['spans-per-payload'], 500), spansPerTrace: num(v['spans-per-trace'], 10), spanSize: v['span-size'] };
const transport = parseTransport(v.transport);
const clients = num(v.concurrency, transport === 'json' ? 64 : 8);

for (const pair of v['service-env']?.split(',').filter(Boolean) ?? []) {
  const [key, ...value] = pair.split('=');
  serviceEnv[key] = value.join('=');
}
if (v['cpu-prof']) {
  // Node 20 refuses --cpu-prof in NODE_OPTIONS: a preload starts the profiler instead (service only).
  serviceEnv.BENCH_CPU_PROF_DIR = path.resolve(v['cpu-prof']);
  fs.mkdirSync(serviceEnv.BENCH_CPU_PROF_DIR, { recursive: true });
  serviceEnv.NODE_OPTIONS = `${serviceEnv.NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? ''} --import ${path.join(import.meta.dirname, 'cpu-prof.mjs')}`.trim();
}

/**
 * Scenarios import their modules when they run: the load generator shares the machine with the
 * service, and every module it holds makes each of its full GCs dearer (the OTLP senders allocate
 * ~1 MB per export, and external memory that fast forces a mark-compact every few hundred ms).
 * With every scenario loaded, and the service's code through a test helper, its heap was 94 MB
 * and it took 0.38-0.40 cores while sending OTLP/gRPC; docs/benchmarks.md, "gRPC at 1.3 cores".
 */
function lazily(make: () => Promise<() => Promise<unknown>>): () => Promise<unknown> {
  let made: Promise<() => Promise<unknown>> | undefined;
  return async () => (await (made ??= make()))();
}

const otlp = (transports: OtlpTransport[]) => async () =>
  (await import('./otlp.js')).benchOtlp({
    ...shape,
    transports,
    concurrency: num(v.concurrency, 8),
    seconds: seconds(30, 5),
    grpcChannels: 4,
    visibleTimeoutSeconds: 120,
  });
const json = {
  concurrency: num(v.concurrency, 64),
  seconds: seconds(30, 5),
  spansPerTrace: shape.spansPerTrace,
  spanSize: shape.spanSize,
  visibleTimeoutSeconds: 120,
};

/** The store's reads at scale (trace-filters, session-list): traces stored, then each read timed `reads` times (3 with --quick). */
const storeReads = (reads: number) => ({ traces: num(v.traces, quick ? 10_000 : 100_000), spansPerTrace: shape.spansPerTrace, reads: quick ? 3 : reads });

const scenarios: Record<string, () => Promise<unknown>> = {
  otlp: otlp(['http', 'grpc']),
  'otlp-http': otlp(['http']),
  'otlp-grpc': otlp(['grpc']),
  json: async () => (await import('./ingest.js')).benchJson(json),
  auth: async () => (await import('./ingest.js')).benchAuth(json),
  'auth-overhead': async () => (await import('./auth-overhead.js')).benchAuthOverhead(quick ? 20_000 : 200_000),
  'insert-breakdown': async () => (await import('./insert-breakdown.js')).benchInsertBreakdown({ exportsPerBatch: 4, rounds: quick ? 3 : 9 }),
  'insert-format': async () =>
    (await import('./insert-format.js')).benchInsertFormat({ spansPerBatch: num(v.spans, 500), rounds: quick ? 3 : 15, longAnswer: v.cases === 'long-answer' }),
  'insert-cost': async () => (await import('./insert-cost.js')).benchInsertCost({ inserts: quick ? 20 : 100, rounds: quick ? 2 : 5 }),
  'span-pricing': async () =>
    (await import('./span-pricing.js')).benchSpanPricing({ traces: quick ? 200 : 2000, spansPerTrace: shape.spansPerTrace, rounds: quick ? 3 : 9 }),
  ingest: async () => (await import('./ingest.js')).benchIngest({ ...json, targetSpans: quick ? 50_000 : 1_000_000, reads: quick ? 100 : 500 }),
  latency: lazily(async () =>
    (await import('./latency.js')).latencyBench({
      ...shape,
      transport,
      rate: v.rate === undefined ? undefined : Number(v.rate),
      fraction: Number(v.fraction),
      concurrency: clients,
      calibrateSeconds: seconds(30, 5),
      seconds: seconds(30, 10),
      warmupSeconds: quick ? 2 : 5,
    }),
  ),
  overload: async () =>
    (await import('./overload.js')).benchOverload({
      ...shape,
      transport,
      concurrency: clients,
      factor: Number(v.factor),
      seconds: seconds(10, 5),
      burstSeconds: num(v['burst-seconds'], quick ? 5 : 15),
      verify: Number(v.verify),
      visibleTimeoutSeconds: 300,
    }),
  'long-trace': async () =>
    (await import('./long-trace.js')).benchLongTrace({
      totalSpans: num(v['total-spans'], quick ? 10_000 : 100_000),
      batchSpans: Number(v['batch-spans']),
      spanSize: shape.spanSize,
      window: 10,
      reads: 3,
    }),
  // --paths embedded,kafka (default both); --probes N: latency probes pending at once (default 1)
  'write-path': async () =>
    (await import('./write-path.js')).benchWritePath({
      paths: (v.paths ?? 'embedded,kafka').split(',') as WritePathKind[],
      concurrency: num(v.concurrency, 8),
      seconds: seconds(30, 8),
      spansPerPayload: shape.spansPerPayload,
      spansPerTrace: shape.spansPerTrace,
      poolSize: 16,
      probeIntervalMs: 200,
      probePollMs: 20,
      probeInFlight: num(v.probes, 1),
      probeTimeoutMs: 60_000,
      burstConcurrency: 32,
      burstSeconds: 5,
      visibleTimeoutSeconds: 120,
    }),
  // --spans N filled into the topic, then drained (default 500,000, --quick 50,000); --concurrency N exporters filling it (default 8)
  'ingester-drain': async () =>
    (await import('./ingester-drain.js')).benchIngesterDrain({
      ...shape,
      spans: num(v.spans, quick ? 50_000 : 500_000),
      concurrency: num(v.concurrency, 8),
      drainTimeoutSeconds: 900,
      settleSeconds: 60,
      gunzipSampleMessages: 30,
    }),
  // --cases N (default 200, --quick 50); --concurrency N: the parallel run's (default: the service's, 10); --poll-ms N (default 50)
  'eval-runs': async () =>
    (await import('./eval-runs.js')).benchEvalRuns({
      cases: num(v.cases, quick ? 50 : 200),
      concurrency: v.concurrency === undefined ? undefined : Number(v.concurrency),
      pollMs: Number(v['poll-ms']),
      warmupCases: 20,
      directWarmup: 50,
    }),
  // --traces N (default 100,000, --quick 10,000); --spans-per-trace N (default 10)
  'trace-filters': async () => (await import('./trace-filters.js')).benchTraceFilters(storeReads(5)),
  // --traces N stored before a rule scores them (default 20,000, --quick 3,000; the judge phase a tenth, at least 200);
  // --seconds S of ingest load, with and without a rule (default 30, --quick 10); --concurrency N ingest clients (default 64)
  'online-evals': async () => {
    const traces = num(v.traces, quick ? 3000 : 20_000);
    return (await import('./online-evals.js')).benchOnlineEvals({
      backlogTraces: traces,
      judgeTraces: Math.max(200, Math.round(traces / 10)),
      loadSeconds: seconds(30, 10),
      clients: num(v.concurrency, 64),
      spansPerTrace: shape.spansPerTrace,
      delaySeconds: 5,
    });
  },
  // --traces N (default 100,000: 1,000,000 spans; --quick 10,000); --spans-per-trace N (default 10)
  'session-list': async () => (await import('./session-list.js')).benchSessionList(storeReads(7)),
  // --spans N stored and exported in each format (default 1,000,000; --quick 100,000)
  export: async () => (await import('./export.js')).benchExport({ spans: num(v.spans, quick ? 100_000 : 1_000_000) }),
  // --spans N written by ClickHouse from numbers() (default 10,000,000; --quick 200,000), then the API's reads timed
  'reads-at-scale': async () =>
    (await import('./reads-at-scale.js')).benchReadsAtScale({
      spans: num(v.spans, quick ? 200_000 : 10_000_000),
      spansPerTrace: num(v['spans-per-trace'], 10),
      textBytes: 400,
      reads: quick ? 50 : 200,
    }),
  // --quick: fewer evaluations per round
  'trajectory-scoring': async () => (await import('./trajectory-scoring.js')).benchTrajectoryScoring({ iterations: quick ? 50 : 200, rounds: quick ? 3 : 9 }),
  // --quick: 20 turns and 20 conversations instead of 50 and 100
  conversations: async () =>
    (await import('./conversations.js')).benchConversations({
      turns: quick ? 20 : 50,
      parallel: quick ? 20 : 100,
      parallelTurns: 10,
      pollMs: Number(v['poll-ms']),
    }),
  // --span-size S (default 2k); --quick: fewer rounds
  'json-request-cost': async () =>
    Promise.resolve((await import('./json-request-cost.js')).benchJsonRequestCost({ requests: 400, rounds: quick ? 5 : 15, spanSize: v['span-size'] ?? '2k' })),
  'mcp-tools': async () => (await import('./mcp-tools.js')).benchMcpTools({ traces: num(v.traces, quick ? 200 : 2_000), calls: quick ? 10 : 50 }),
  'trial-trace-read': async () => (await import('./trial-trace-read.js')).benchTrialTraceRead({ iterations: quick ? 10 : 50, rounds: quick ? 3 : 9 }),
  ui: async () =>
    (await import('./ui.js')).benchUi({
      traces: num(v.traces, quick ? 10_000 : 100_000),
      concurrency: num(v.concurrency, 64),
      loads: quick ? 2 : 3,
      minRows: 10,
    }),
};

const run = scenarios[scenario];
if (!run) {
  console.error(`unknown scenario '${scenario}'; one of: ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
useInvocationTmpDir(v['keep-data']);
// Every service a scenario starts runs the Temporal dev server: build its CLI first when a fresh
// machine lacks it, or the first services time out starting while it builds.
ensureTemporalCli();
const runs: unknown[] = [];
const discarded: unknown[] = [];
const started = new Date().toISOString();
const loadavg = [os.loadavg()];
const busyBefore: number[] = [];
/** The most CPU other processes took during a run (every phase's `other_processes_cpu_cores`). */
const noise = (result: unknown) =>
  Math.max(
    0,
    ...numericLeaves(result)
      .filter(([k]) => k.endsWith('other_processes_cpu_cores'))
      .map(([, n]) => n),
  );
for (let i = 0; i < Number(v.runs); i++) {
  // --wait-quiet S: on a shared machine, start each run once others leave the CPUs idle (at most S s).
  const busy = Number(v['wait-quiet']) > 0 ? await waitQuiet(Number(v['wait-quiet'])) : undefined;
  if (busy !== undefined) busyBefore.push(busy);
  const probe = speedProbeMs();
  console.log(JSON.stringify({ phase: 'run', scenario, run: i + 1, of: Number(v.runs), machine_busy_cores_before: busy, speed_probe_ms: probe }));
  const result = { ...((await run()) as object), speed_probe_ms_before: probe };
  loadavg.push(os.loadavg());
  // --max-noise C: a run during which other processes took more than C cores is run again
  // (at most --max-retries times per invocation); it is kept in the results file as discarded.
  if (v['max-noise'] !== undefined && noise(result) > Number(v['max-noise']) && discarded.length < Number(v['max-retries'])) {
    console.log(JSON.stringify({ phase: 'discarded', run: i + 1, other_processes_cpu_cores: noise(result) }));
    discarded.push(result);
    i--;
    continue;
  }
  runs.push(result);
}
const median = medianOf(runs);
// Every number: its median and each run's value (the spread says how noisy the machine was).
const perRun = runs.map((r) => new Map(numericLeaves(r)));
console.log(`\n${scenario}: median of ${runs.length} run(s) [each run]`);
for (const [key, value] of numericLeaves(median))
  console.log(`  ${key.padEnd(56)} ${String(value).padStart(10)}   [${perRun.map((m) => m.get(key) ?? '-').join(', ')}]`);

const dir = path.join(import.meta.dirname, 'results');
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, `${scenario}-${started.replace(/[:.]/g, '-')}.json`);
const machine = { cpus: os.cpus().length, loadavg_1_5_15_after_each_run: loadavg, busy_cores_before_each_run: busyBefore };
fs.writeFileSync(file, JSON.stringify({ scenario, quick, options: v, started, machine, median, runs, discarded_noisy_runs: discarded }, null, 2));
console.log(`results: ${file}`);
process.exit(0);
