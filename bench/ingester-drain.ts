import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { Kafka, logLevel } from 'kafkajs';
import { makeDataDir } from '../test/helpers/data-dir.js';
import { startKafka, topicMessageCount } from '../test/helpers/kafka.js';
import { forEachConcurrently, spawnServiceProcess, stopProcess, type ServiceProcess } from '../test/helpers/processes.js';
import { cpuSeconds, getJson, median, meter, round, sleep, threadTimes } from './lib.js';
import { bytesPerSpan, cachedPool, type PayloadShape } from './otlp-payloads.js';
import { deliver, httpSender, otlpSource, Outcomes } from './senders.js';
import { serviceEnv } from './service.js';

/**
 * The Kafka ingester alone (issue 13): a `collector` process fills the spans topic with `spans`
 * OTLP/HTTP spans while no ingester runs; it stops; then an `ingester` process (chDB in-process,
 * nothing else) drains the topic, timed from its ready line until the group's lag is 0 and every
 * span is in its chDB. Its CPU is split by thread (bench/lib.ts threadTimes), per span, until
 * the merges the drain caused have run. The process has no api role: the api role starts the
 * embedded Temporal dev server after the ingester has begun consuming, so its ready line would
 * come late; lag is read from its health port, counts through its ClickHouse gateway.
 * Run: `npm run bench -- ingester-drain [--quick] [--runs N] [--spans N] [--concurrency N]`.
 */
export interface IngesterDrainOptions extends PayloadShape {
  spans: number;
  /** Exporters filling the topic. */
  concurrency: number;
  drainTimeoutSeconds: number;
  /** After the drain, the most to wait for the process's CPU to go quiet (its merges). */
  settleSeconds: number;
  /** Messages of each table read back to time their decompression. */
  gunzipSampleMessages: number;
}

const TOPIC = 'bench.spans';
const KAFKA_ENV = { KAFKA_TOPIC: TOPIC, KAFKA_DLQ_TOPIC: `${TOPIC}.dlq`, KAFKA_GROUP_ID: 'bench-ingester' };

type Threads = Record<string, number>;
type Snapshot = { threads: ReturnType<typeof threadTimes>; cpu: number };
const snapshot = (pid: number): Snapshot => ({ threads: threadTimes(pid), cpu: cpuSeconds(pid) });

/**
 * CPU seconds by thread between two snapshots. Threads are matched by id and keep their name of
 * the first snapshot (Node's `node#k` numbers shift when a thread ends); threads started since are
 * `new:<name>`, and `ended` is the CPU of threads that ended since (chDB's pools shrink): the
 * process's CPU less its live threads'.
 */
function threadsSince(pid: number, before: Snapshot): Threads {
  const after = snapshot(pid);
  const known = new Map(before.threads.map((t) => [t.tid, t]));
  const out: Threads = {};
  let live = 0;
  for (const t of after.threads) {
    const was = known.get(t.tid);
    const name = was ? was.name : `new:${t.name.replace(/#\d+$/, '')}`;
    out[name] = (out[name] ?? 0) + t.s - (was?.s ?? 0);
    live += t.s - (was?.s ?? 0);
  }
  out.ended = Math.max(0, after.cpu - before.cpu - live);
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, round(v)]));
}

/**
 * Thread CPU in groups. Node names its own threads `node`; by creation order (checked on this
 * machine with a gunzip loop and an allocation loop in a bare process) node#2-#5 are V8's platform
 * workers (concurrent GC, compilation) and node#7-#10 libuv's pool, where kafkajs' gunzip and
 * chDB's query entry (an insert's JSONEachRow parsing) run. Threads with other names are chDB's.
 */
function groupThreads(cpu: Threads) {
  const g = { main: 0, v8_platform: 0, libuv_pool: 0, other_node: 0, ch_thread_pool: 0, ch_merges: 0, ch_other: 0, ended: 0 };
  for (const [label, s] of Object.entries(cpu)) {
    const name = label.replace(/^new:/, '');
    // Only threads of the first snapshot have a creation number to go by.
    const n = name === label ? Number(/^node#(\d+)$/.exec(name)?.[1] ?? NaN) : NaN;
    if (name === 'main') g.main += s;
    else if (n >= 2 && n <= 5) g.v8_platform += s;
    else if (n >= 7 && n <= 10) g.libuv_pool += s;
    else if (name.startsWith('node')) g.other_node += s;
    else if (name === 'ThreadPool') g.ch_thread_pool += s;
    else if (name === 'MergeMutate') g.ch_merges += s;
    else if (label === 'ended') g.ended += s;
    else g.ch_other += s;
  }
  return g;
}

const perSpan = (group: Record<string, number>, spans: number) => Object.fromEntries(Object.entries(group).map(([k, s]) => [k, round((s * 1e6) / spans, 1)]));

/** Sends `opts.spans` spans to a collector-only process producing to Kafka, then stops it. */
async function fill(env: Record<string, string>, opts: IngesterDrainOptions) {
  const pool = cachedPool(opts);
  const dir = makeDataDir('agent-eval-bench-collector-');
  const svc = await spawnServiceProcess(dir, { ...serviceEnv, ...env, AGENT_EVAL_ROLES: 'collector' });
  try {
    const pid = svc.child.pid!;
    const sender = httpSender(svc.otlpHttpUrl!, svc.projectId);
    const next = otlpSource(pool);
    const outcomes = new Outcomes();
    const acked = { spans: 0, traces: 0, failed: 0 };
    const threads0 = snapshot(pid);
    const m = meter(pid);
    const t0 = performance.now();
    await forEachConcurrently(Math.ceil(opts.spans / opts.spansPerPayload), opts.concurrency, async () => {
      const job = next();
      if (await deliver(sender, job.body, outcomes)) {
        acked.spans += job.spans;
        acked.traces += job.traces.length;
      } else acked.failed++;
    });
    const s = (performance.now() - t0) / 1000;
    const used = m.read(acked.spans);
    m.stop();
    const threads = groupThreads(threadsSince(pid, threads0));
    return {
      ...acked,
      result: {
        exporters: opts.concurrency,
        bytes_per_span: bytesPerSpan(pool),
        load_s: round(s, 1),
        acked_spans: acked.spans,
        spans_per_s_acked: Math.round(acked.spans / s),
        failed_payloads: acked.failed,
        outcomes: outcomes.toJSON(),
        collector_cpu_cores: used.server_cpu_cores,
        collector_cpu_us_per_span: used.server_cpu_ms_per_1k_spans,
        collector_threads_us_per_span: perSpan(threads, acked.spans),
        client_cpu_cores: used.client_cpu_cores,
        // The broker's CPU is in here: it shares the cores while the collector produces.
        other_processes_cpu_cores: used.other_processes_cpu_cores,
      },
    };
  } finally {
    await stopProcess(svc, 120_000);
  }
}

type RowTable = 'spans' | 'trace_stats_input';

/** The rows of each table in the first `perTable` messages on the topic (format 4: span rows, an empty line, summary rows). */
async function sampleMessages(kafka: Kafka, perTable: number): Promise<Record<RowTable, Buffer[]>> {
  const out: Record<RowTable, Buffer[]> = { spans: [], trace_stats_input: [] };
  const consumer = kafka.consumer({ groupId: `bench-sample-${Date.now()}`, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: ({ message }) => {
        const value = message.value;
        const at = value?.indexOf('\n\n') ?? -1;
        if (!value || at === -1 || out.spans.length >= perTable) return Promise.resolve();
        if (at > 0) out.spans.push(value.subarray(0, at));
        if (at + 2 < value.length) out.trace_stats_input.push(value.subarray(at + 2));
        return Promise.resolve();
      },
    });
    const deadline = Date.now() + 120_000;
    while (out.spans.length < perTable) {
      if (Date.now() > deadline) throw new Error(`sampled ${out.spans.length} spans and ${out.trace_stats_input.length} trace_stats_input messages in 120 s`);
      await sleep(100);
    }
    return out;
  } finally {
    await consumer.disconnect();
  }
}

/**
 * kafkajs gunzips fetched record batches on libuv's pool, beside chDB's insert parsing: timed
 * here, in this process, on messages read back and compressed as the producer did (gzip, default
 * level, about one message per record batch: a produce request carries at most one message's
 * bytes). Per table: a message holds a write's span rows and its trace_stats_input rows, which
 * compress differently; a trace's stats row comes once per `spansPerTrace` spans.
 */
async function gunzipCost(kafka: Kafka, perTable: number, spansPerTrace: number) {
  const sample = await sampleMessages(kafka, perTable);
  const table = (values: Buffer[]) => {
    const rows = values.reduce((n, v) => n + v.toString('utf8').split('\n').length, 0);
    const raw = values.reduce((n, v) => n + v.length, 0);
    const compressed = values.map((v) => zlib.gzipSync(v));
    const times: number[] = [];
    for (let r = 0; r < 11; r++) {
      const t = performance.now();
      for (const c of compressed) zlib.unzipSync(c);
      times.push(performance.now() - t);
    }
    return { bytesPerRow: raw / rows, ratio: raw / compressed.reduce((n, c) => n + c.length, 0), usPerRow: (median(times.slice(1)) * 1000) / rows };
  };
  const spans = table(sample.spans);
  const stats = table(sample.trace_stats_input);
  return {
    sample_messages_per_table: perTable,
    row_bytes_per_span: Math.round(spans.bytesPerRow + stats.bytesPerRow / spansPerTrace),
    gzip_ratio: { spans: round(spans.ratio, 1), trace_stats_input: round(stats.ratio, 1) },
    row_bytes: { spans: Math.round(spans.bytesPerRow), trace_stats_input: Math.round(stats.bytesPerRow) },
    us_per_row: { spans: round(spans.usPerRow, 2), trace_stats_input: round(stats.usPerRow, 2) },
    us_per_span: round(spans.usPerRow + stats.usPerRow / spansPerTrace, 1),
  };
}

async function consumerLag(svc: ServiceProcess): Promise<number | undefined> {
  const res = await getJson(`${svc.healthUrl}/api/health`, {}).catch(() => undefined);
  return (res?.body as { ingest?: { consumerLag?: number } } | undefined)?.ingest?.consumerLag;
}

async function scalar(ch: ClickHouseClient, query: string): Promise<number> {
  const rows = await (await ch.query({ query, format: 'JSONEachRow' })).json<{ n: string | number }>();
  return Number(rows[0]?.n ?? 0);
}

/** Spans written into `spans` by INSERTs so far: block numbers count them (one partition, one counter per table). */
const SPANS_INSERTS = "SELECT max(max_block_number) AS n FROM system.parts WHERE database = 'agent_eval' AND table = 'spans'";

/** Waits until the process spends under 0.05 cores over 2 s (its merges done), at most `maxS`. */
async function settle(pid: number, maxS: number): Promise<number> {
  const t0 = performance.now();
  let last = cpuSeconds(pid);
  while (performance.now() - t0 < maxS * 1000) {
    await sleep(2000);
    const now = cpuSeconds(pid);
    if (now - last < 0.1) break;
    last = now;
  }
  return (performance.now() - t0) / 1000;
}

/** Starts an ingester-only process on the filled topic and times it until every span is in its chDB. */
async function drain(
  env: Record<string, string>,
  expected: { spans: number; traces: number; messages: number },
  brokerPid: number,
  gunzipUs: number,
  opts: IngesterDrainOptions,
) {
  const dir = makeDataDir('agent-eval-bench-ingester-');
  const password = randomBytes(12).toString('hex');
  const svc = await spawnServiceProcess(dir, {
    ...serviceEnv,
    ...env,
    AGENT_EVAL_ROLES: 'ingester',
    CLICKHOUSE_GATEWAY_PORT: '0',
    CLICKHOUSE_GATEWAY_PASSWORD: password,
  });
  const t0 = performance.now();
  const pid = svc.child.pid!;
  const threads0 = snapshot(pid);
  const broker0 = cpuSeconds(brokerPid);
  const m = meter(pid);
  // A long timeout for the OPTIMIZE below; the client warns about that at WARN level.
  const ch = createClient({ url: svc.clickhouseGatewayUrl, username: 'default', password, request_timeout: 600_000, log: { level: ClickHouseLogLevel.ERROR } });
  try {
    if (!svc.clickhouseGatewayUrl || !svc.healthUrl) throw new Error('ingester started without its gateway or health port');
    const lagAtReady = await consumerLag(svc);
    const insertsAtReady = await scalar(ch, SPANS_INSERTS);
    let firstCommit: number | undefined;
    let half: number | undefined;
    let stored = 0;
    let drainedAt: number | undefined;
    const timeline: Array<[number, number]> = [];
    while (performance.now() - t0 < opts.drainTimeoutSeconds * 1000) {
      const lag = await consumerLag(svc);
      const at = round((performance.now() - t0) / 1000, 1);
      if (lag !== undefined && (timeline.length === 0 || at - timeline[timeline.length - 1][0] >= 2)) timeline.push([at, lag]);
      if (firstCommit === undefined && lag !== undefined && lag < expected.messages) firstCommit = performance.now();
      if (half === undefined && lag !== undefined && lag <= expected.messages / 2) half = performance.now();
      if (lag === 0) {
        stored = await scalar(ch, 'SELECT count() AS n FROM agent_eval.spans');
        if (stored >= expected.spans) {
          drainedAt = performance.now();
          break;
        }
      }
      await sleep(250);
    }
    if (drainedAt === undefined)
      throw new Error(`ingester did not drain ${expected.spans} spans within ${opts.drainTimeoutSeconds} s (${stored} stored):\n${svc.output().slice(-4000)}`);
    const s = (drainedAt - t0) / 1000;
    const broker1 = cpuSeconds(brokerPid);
    const during = m.read(expected.spans);
    const settleS = await settle(pid, opts.settleSeconds);
    const whole = threadsSince(pid, threads0);
    const after = m.read(expected.spans);
    m.stop();
    const g = groupThreads(whole);
    const us = perSpan(g, expected.spans);
    // The libuv pool runs both gunzip (the ingester's) and the inserts' parsing (ClickHouse's).
    const parse = Math.max(0, us.libuv_pool - gunzipUs);
    const js = us.main + us.v8_platform + us.other_node + Math.min(us.libuv_pool, gunzipUs);
    const clickhouse = us.ch_thread_pool + us.ch_merges + us.ch_other + parse;
    const inserts = (await scalar(ch, SPANS_INSERTS)) - insertsAtReady;
    const parts = await scalar(ch, "SELECT count() AS n FROM system.parts WHERE database = 'agent_eval' AND table = 'spans' AND active");
    // A drain this size leaves fewer parts than merge_selector_base lets merge, so its merges come
    // later: merging everything once (each row rewritten once) bounds what they cost per span.
    const merge0 = snapshot(pid);
    const tm = performance.now();
    for (const table of ['spans', 'trace_stats']) await ch.command({ query: `OPTIMIZE TABLE agent_eval.${table} FINAL` });
    const merged = perSpan(groupThreads(threadsSince(pid, merge0)), expected.spans);
    return {
      lag_at_ready_messages: lagAtReady ?? null,
      topic_messages: expected.messages,
      spans_inserts_before_ready: insertsAtReady,
      drain_s: round(s, 1),
      // Nothing is committed before the first insert: the first fetches, their gunzip and decoding come first.
      first_commit_s: firstCommit === undefined ? null : round((firstCommit - t0) / 1000, 1),
      half_drained_s: half === undefined ? null : round((half - t0) / 1000, 1),
      spans_per_s: Math.round(expected.spans / s),
      // The second half's rate: without the group join and the first fetches.
      spans_per_s_second_half: half === undefined ? null : Math.round(expected.spans / 2 / ((drainedAt - half) / 1000)),
      cpu_cores: during.server_cpu_cores,
      cpu_us_per_span_drain: during.server_cpu_ms_per_1k_spans,
      settle_s: round(settleS, 1),
      // From the ready line until the merges the drain caused were done.
      cpu_us_per_span: after.server_cpu_ms_per_1k_spans,
      threads_us_per_span: us,
      split_us_per_span: { js: round(js, 1), clickhouse: round(clickhouse, 1), of_which_insert_parsing: round(parse, 1), unattributed: us.ended },
      spans_per_s_per_core: {
        js: Math.round(1e6 / js),
        clickhouse: Math.round(1e6 / clickhouse),
        whole_process: Math.round(1e6 / (after.server_cpu_ms_per_1k_spans ?? NaN)),
      },
      spans_inserts: inserts,
      spans_per_insert: inserts > 0 ? Math.round(expected.spans / inserts) : null,
      spans_parts_active_after: parts,
      merge_all_once: {
        s: round((performance.now() - tm) / 1000, 1),
        us_per_span: round(
          Object.values(merged).reduce((a, b) => a + b, 0),
          1,
        ),
        threads_us_per_span: merged,
      },
      stored_spans: stored,
      stored_traces: await scalar(ch, 'SELECT uniqExact(trace_id) AS n FROM agent_eval.trace_stats'),
      expected_traces: expected.traces,
      rss_mb: { peak: after.server_peak_rss_mb, after: after.server_rss_mb },
      broker_cpu_cores: round((broker1 - broker0) / s),
      client_cpu_cores: during.client_cpu_cores,
      // Every process but the ingester, the bench and the broker (the broker is counted apart).
      other_processes_cpu_cores: round(Math.max(0, during.other_processes_cpu_cores - (broker1 - broker0) / s)),
      threads_cpu_s: whole,
      lag_timeline_s_messages: timeline,
    };
  } finally {
    await ch.close();
    await stopProcess(svc, 120_000);
  }
}

export async function benchIngesterDrain(opts: IngesterDrainOptions) {
  const broker = await startKafka();
  try {
    const env = { ...KAFKA_ENV, KAFKA_BROKERS: broker.brokers.join(',') };
    const filled = await fill(env, opts);
    if (filled.failed > 0) throw new Error(`fill: ${filled.failed} payloads not acknowledged`);
    const kafka = new Kafka({ clientId: 'bench-admin', brokers: broker.brokers, logLevel: logLevel.NOTHING });
    const messages = await topicMessageCount(kafka, TOPIC);
    console.log(JSON.stringify({ phase: 'ingester-drain-fill', ...filled.result, topic_messages: messages }));
    const gunzip = await gunzipCost(kafka, opts.gunzipSampleMessages, opts.spansPerTrace);
    const drained = await drain(env, { spans: filled.spans, traces: filled.traces, messages }, broker.pid, gunzip.us_per_span, opts);
    const deadLetters = await topicMessageCount(kafka, KAFKA_ENV.KAFKA_DLQ_TOPIC);
    const result = {
      phase: 'ingester-drain',
      spans: filled.spans,
      fill: { ...filled.result, topic_messages: messages },
      gunzip,
      drain: { ...drained, dead_letters: deadLetters },
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await broker.stop();
  }
}
