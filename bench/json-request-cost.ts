import { createCollector } from '../collector/index.js';
import { decodeIngestBody } from '../collector/json/ingest-body.js';
import { normalizeSpan } from '../collector/normalize/index.js';
import { checkedIngestTrace } from '../core/model/ingest-body-check.js';
import { DEFAULT_MAX_SPAN_BYTES } from '../core/config-env.js';
import { loadPriceTable } from '../core/cost/price-table.js';
import { IngestTraceSchema } from '../core/model/ingest-body.js';
import { median, round, spanSize } from './lib.js';
import { jsonSource } from './senders.js';

/**
 * Issue 33, "JSON ingest at OTLP's efficiency": the main thread's CPU per small JSON request in
 * the stages that are paid per request and per span before the insert, in process, on the JSON
 * bench's own bodies (10-span agent traces, `--span-size`, default 2k): JSON.parse of the body,
 * its validation by the zod schema and by the hand check that now takes well-formed bodies
 * (core/model/ingest-body-check.ts), normalizing its spans (collector/normalize), and the whole
 * collector path of a request without its insert (`ingest_path_us`: the hand check, decoding,
 * normalizing, pricing, span rows and trace summaries, into a sink that takes the rows at once). `rounds`
 * rounds of `requests` bodies each; the median of the rounds' µs per request, from
 * process.cpuUsage. Run: `npm run bench -- json-request-cost [--runs N] [--quick] [--span-size S]`.
 */
export interface JsonRequestCostOptions {
  requests: number;
  rounds: number;
  spanSize: string;
}

function cpuPerCall(rounds: number, calls: number, fn: () => void): number {
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    perRound.push((used.user + used.system) / calls);
  }
  return round(median(perRound), 2);
}

export function benchJsonRequestCost(opts: JsonRequestCostOptions) {
  const next = jsonSource(10, spanSize(opts.spanSize));
  const texts = Array.from({ length: opts.requests }, () => String(next().body));
  const bodies = texts.map((t) => JSON.parse(t) as unknown);
  const raws = bodies.map((b) => decodeIngestBody(IngestTraceSchema.parse(b)).spans);
  if (bodies.some((b) => checkedIngestTrace(b) === undefined)) throw new Error('a bench body did not pass the hand check');
  const n = opts.requests;
  // A sink that takes every write at once: what is timed is the main thread's work before the insert.
  const collector = createCollector({
    sink: {
      write: () => Promise.resolve(),
      admit: () => undefined,
      close: () => Promise.resolve(),
      stats: () => ({ kind: 'direct', pendingSpans: 0, pendingBytes: 0 }),
    },
    maxSpanBytes: DEFAULT_MAX_SPAN_BYTES,
    prices: loadPriceTable(),
  });
  // Warm up every path once so the first round is not the JIT's.
  for (const b of bodies) {
    IngestTraceSchema.parse(b);
    checkedIngestTrace(b);
  }
  return {
    requests_per_round: n,
    spans_per_request: 10,
    bytes_per_request: Math.round(texts.reduce((s, t) => s + Buffer.byteLength(t), 0) / n),
    json_parse_us: cpuPerCall(opts.rounds, n, () => texts.forEach((t) => void JSON.parse(t))),
    validate_zod_us: cpuPerCall(opts.rounds, n, () => bodies.forEach((b) => IngestTraceSchema.parse(b))),
    validate_hand_check_us: cpuPerCall(opts.rounds, n, () => bodies.forEach((b) => checkedIngestTrace(b))),
    normalize_us: cpuPerCall(opts.rounds, n, () => raws.forEach((spans) => spans.forEach((s) => normalizeSpan(s, 'bench')))),
    ingest_path_us: cpuPerCall(opts.rounds, n, () => bodies.forEach((b) => void collector.ingestTrace('bench', b))),
  };
}
