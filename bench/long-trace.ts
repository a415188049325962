import { randomBytes } from 'node:crypto';
import { cpuSeconds, getTimed, median, meter, round, spanSize, summarize } from './lib.js';
import { buildPayload, stampInto } from './otlp-payloads.js';
import { deliver, httpSender, Outcomes } from './senders.js';
import { startBenchService } from './service.js';

/**
 * Issue 7 item 6: one trace of `totalSpans` (100,000) spans written in batches of `batchSpans`
 * (1,000) over OTLP/HTTP protobuf, one batch at a time: same trace id, fresh span ids, all spans
 * children of the first batch's root. Per batch: acknowledgement latency and server CPU (from one
 * send to the next, so work left over after an acknowledgement lands on the next batch); reported
 * for the first, middle and last `window` batches and as a line fitted through all of them, to
 * show whether the cost per batch stays constant as the trace grows. Then reads: GET /api/traces/{id} (its first page when the API
 * pages spans) and GET /api/traces?limit=50, each `reads` times, timed to the last byte.
 * Run: `npm run bench -- long-trace [--total-spans N] [--batch-spans N] [--runs N] [--quick]`.
 */
export interface LongTraceBenchOptions {
  totalSpans: number;
  batchSpans: number;
  spanSize: string;
  window: number;
  reads: number;
}

type Batch = { ackMs: number; cpuMs: number };

function windowStats(batches: Batch[], from: number, count: number) {
  const w = batches.slice(Math.max(0, from), Math.max(0, from) + count);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    batches: `${Math.max(0, from) + 1}-${Math.max(0, from) + w.length}`,
    ack_ms_median: round(median(w.map((b) => b.ackMs)), 1),
    ack_ms_mean: round(mean(w.map((b) => b.ackMs)), 1),
    cpu_ms_per_batch_median: round(median(w.map((b) => b.cpuMs)), 1),
    cpu_ms_per_batch_mean: round(mean(w.map((b) => b.cpuMs)), 1),
  };
}

/** Least-squares line through the series: its value at the first and at the last batch. */
function trend(ys: number[]) {
  const n = ys.length;
  const mx = (n - 1) / 2;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  const den = ys.reduce((a, _, x) => a + (x - mx) ** 2, 0) || 1;
  const slope = ys.reduce((a, y, x) => a + (x - mx) * (y - my), 0) / den;
  const first = my - slope * mx;
  const last = my + slope * (n - 1 - mx);
  return { first: round(first, 1), last: round(last, 1), last_over_first: round(last / first) };
}

async function timedReads(url: string, headers: Record<string, string>, n: number) {
  const ms: number[] = [];
  let last = { status: 0, bytes: 0, spans: null as number | null, span_count: null as number | null };
  for (let i = 0; i < n; i++) {
    const res = await getTimed(url, headers).catch((err: Error) => ({ status: -1, ms: NaN, bytes: 0, text: err.message }));
    if (Number.isFinite(res.ms)) ms.push(res.ms);
    let body: { spans?: unknown[]; span_count?: number; traces?: unknown[] } = {};
    try {
      body = JSON.parse(res.text) as typeof body;
    } catch {
      // not JSON (an error page): status says what happened
    }
    last = { status: res.status, bytes: res.bytes, spans: (body.spans ?? body.traces)?.length ?? null, span_count: body.span_count ?? null };
  }
  return { ms: summarize(ms), ...last };
}

export async function benchLongTrace(opts: LongTraceBenchOptions) {
  const size = spanSize(opts.spanSize);
  const first = buildPayload({ spansPerPayload: opts.batchSpans, spansPerTrace: opts.batchSpans, seed: 1, size });
  const rest = buildPayload({ spansPerPayload: opts.batchSpans, spansPerTrace: opts.batchSpans, seed: 2, size, continuation: true });
  const traceId = randomBytes(16);
  const rootSpanId = randomBytes(8);
  const n = Math.ceil(opts.totalSpans / opts.batchSpans);
  const svc = await startBenchService();
  try {
    const pid = svc.child.pid!;
    const sender = httpSender(svc.otlpHttpUrl, svc.projectId);
    const outcomes = new Outcomes();
    const batches: Batch[] = [];
    const m = meter(pid);
    let failed = 0;
    for (let i = 0; i < n; i++) {
      const body = stampInto(i === 0 ? first : rest, traceId, rootSpanId);
      const cpu0 = cpuSeconds(pid);
      const t = performance.now();
      if (!(await deliver(sender, body, outcomes))) failed++;
      batches.push({ ackMs: performance.now() - t, cpuMs: (cpuSeconds(pid) - cpu0) * 1000 });
      if ((i + 1) % 10 === 0) console.log(JSON.stringify({ phase: 'long-trace-progress', batch: i + 1, of: n, ack_ms: round(batches[i].ackMs, 1) }));
    }
    const write = m.read(n * opts.batchSpans);
    m.stop();
    const id = traceId.toString('hex');
    const headers = { 'x-project-id': svc.projectId };
    const byId = await timedReads(`${svc.apiUrl}/api/traces/${id}`, headers, opts.reads);
    const list = await timedReads(`${svc.apiUrl}/api/traces?limit=50`, headers, opts.reads);
    const w = Math.min(opts.window, n);
    const firstW = windowStats(batches, 0, w);
    const middleW = windowStats(batches, Math.floor(n / 2 - w / 2), w);
    const lastW = windowStats(batches, n - w, w);
    const result = {
      total_spans: n * opts.batchSpans,
      batch_spans: opts.batchSpans,
      batches: n,
      bytes_per_span: Math.round(rest.bytes.length / rest.spans),
      failed_batches: failed,
      outcomes: outcomes.toJSON(),
      write_s: write.seconds,
      spans_per_s: Math.round((n * opts.batchSpans) / write.seconds),
      server_cpu_cores: write.server_cpu_cores,
      server_cpu_ms_per_1k_spans: write.server_cpu_ms_per_1k_spans,
      server_peak_rss_mb: write.server_peak_rss_mb,
      other_processes_cpu_cores: write.other_processes_cpu_cores,
      first: firstW,
      middle: middleW,
      last: lastW,
      last_over_first: {
        ack_ms: round(lastW.ack_ms_median / firstW.ack_ms_median),
        cpu_ms: round(lastW.cpu_ms_per_batch_median / firstW.cpu_ms_per_batch_median),
      },
      // A line fitted through all batches: less sensitive to a merge landing in one window.
      trend: { ack_ms: trend(batches.map((b) => b.ackMs)), cpu_ms: trend(batches.map((b) => b.cpuMs)) },
      get_trace: byId,
      list_traces: list,
      per_batch: { ack_ms: batches.map((b) => Math.round(b.ackMs)), cpu_ms: batches.map((b) => Math.round(b.cpuMs)) },
    };
    console.log(JSON.stringify({ phase: 'long-trace', ...result, per_batch: undefined }));
    return result;
  } finally {
    await svc.stop();
  }
}
