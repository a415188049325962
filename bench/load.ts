import { getJson, sleep, summarize } from './lib.js';
import { deliver, Outcomes, type Job, type Sender } from './senders.js';
import type { BenchService } from './service.js';

/**
 * Load shapes shared by the scenarios: closed loop (N clients, each sends its next request when
 * the last was acknowledged) and open loop (requests on a fixed schedule, whatever is pending).
 * Latency is from the first attempt to the acknowledgement, retries included.
 */
export interface LoadResult {
  start: number;
  end: number;
  seconds: number;
  latencies: number[];
  outcomes: Outcomes;
  acked: { spans: number; traces: number; requests: number };
  failed: number;
  /** Every acknowledged trace, when `keepTraces` was set. */
  ackedTraces: Array<{ id: string; spans: number }>;
  lastTraceId: string;
}

function newResult(): LoadResult {
  return {
    start: performance.now(),
    end: 0,
    seconds: 0,
    latencies: [],
    outcomes: new Outcomes(),
    acked: { spans: 0, traces: 0, requests: 0 },
    failed: 0,
    ackedTraces: [],
    lastTraceId: '',
  };
}

async function sendJob(sender: Sender, job: Job, from: number, r: LoadResult, keepTraces: boolean, record = true): Promise<void> {
  if (await deliver(sender, job.body, r.outcomes)) {
    if (record) r.latencies.push(performance.now() - from);
    r.acked.spans += job.spans;
    r.acked.traces += job.traces.length;
    r.acked.requests++;
    r.lastTraceId = job.traces[0]?.id ?? r.lastTraceId;
    if (keepTraces) r.ackedTraces.push(...job.traces);
  } else r.failed++;
}

function finish(r: LoadResult): LoadResult {
  r.end = performance.now();
  r.seconds = (r.end - r.start) / 1000;
  return r;
}

/** `clients` concurrent senders for `seconds`, or until `maxSpans` are acknowledged. */
export async function closedLoop(
  sender: Sender,
  next: () => Job,
  opts: { clients: number; seconds: number; maxSpans?: number; keepTraces?: boolean },
): Promise<LoadResult> {
  const r = newResult();
  const deadline = r.start + opts.seconds * 1000;
  const maxSpans = opts.maxSpans ?? Infinity;
  const client = async () => {
    while (performance.now() < deadline && r.acked.spans < maxSpans) await sendJob(sender, next(), performance.now(), r, opts.keepTraces ?? false);
  };
  await Promise.all(Array.from({ length: opts.clients }, client));
  return finish(r);
}

/**
 * `perSecond` requests a second on a fixed schedule for `seconds`, not waiting for earlier ones
 * (no coordinated omission: latency counts from the scheduled time). Requests of the first
 * `warmupSeconds` are sent but not in the latencies.
 */
export async function openLoop(sender: Sender, next: () => Job, opts: { perSecond: number; seconds: number; warmupSeconds: number }) {
  const r = newResult();
  const interval = 1000 / opts.perSecond;
  const total = Math.max(1, Math.round(opts.perSecond * (opts.seconds + opts.warmupSeconds)));
  const warm = Math.round(opts.perSecond * opts.warmupSeconds);
  const pending = new Set<Promise<void>>();
  let maxPending = 0;
  let lateMs = 0;
  for (let i = 0; i < total; i++) {
    const at = r.start + i * interval;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    else lateMs = Math.max(lateMs, -wait);
    const p = sendJob(sender, next(), at, r, false, i >= warm).finally(() => pending.delete(p));
    pending.add(p);
    maxPending = Math.max(maxPending, pending.size);
  }
  await Promise.all(pending);
  return { ...finish(r), requests: total, measured: total - warm, maxPending, maxSendLateMs: Math.round(lateMs) };
}

/** Polls the trace total until `traces` are visible; when they were, or undefined on timeout. */
export async function waitVisible(svc: BenchService, traces: number, timeoutS: number): Promise<{ at?: number; visible: number }> {
  const until = performance.now() + timeoutS * 1000;
  let visible = 0;
  while (performance.now() < until) {
    const res = await getJson(`${svc.apiUrl}/api/traces?limit=1`, svc.headers).catch(() => undefined);
    if (res?.status === 200) visible = (res.body as { total: number }).total;
    if (visible >= traces) return { at: performance.now(), visible };
    await sleep(100);
  }
  return { visible };
}

/**
 * Reads acknowledged traces back through GET /api/traces/{id} (a random sample of at most
 * `sample`): each must exist with all its spans (`span_count` of the trace summary).
 */
export async function verifyAcked(svc: BenchService, traces: Array<{ id: string; spans: number }>, sample: number) {
  const picked = [...traces];
  for (let k = 0; k < Math.min(sample, picked.length); k++) {
    const j = k + Math.floor(Math.random() * (picked.length - k));
    [picked[k], picked[j]] = [picked[j], picked[k]];
  }
  picked.length = Math.min(sample, picked.length);
  const missing: string[] = [];
  const incomplete: string[] = [];
  const latencies: number[] = [];
  let i = 0;
  const reader = async () => {
    while (i < picked.length) {
      const t = picked[i++];
      const t0 = performance.now();
      const res = await getJson(`${svc.apiUrl}/api/traces/${t.id}`, svc.headers).catch(() => undefined);
      latencies.push(performance.now() - t0);
      if (res?.status !== 200) missing.push(t.id);
      else if (Number((res.body as { span_count?: number }).span_count) < t.spans) incomplete.push(t.id);
    }
  };
  await Promise.all(Array.from({ length: 8 }, reader));
  return {
    acked_traces: traces.length,
    checked: picked.length,
    missing: missing.length,
    incomplete: incomplete.length,
    examples: [...missing, ...incomplete].slice(0, 5),
    read_ms: summarize(latencies),
  };
}
