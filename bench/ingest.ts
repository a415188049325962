import { agentTrace, cpuSeconds, getJson, post, rssMb, summarize } from './lib.js';
import { startBenchService } from './service.js';

/**
 * Issue 2's benchmark: JSON ingest throughput and latency at concurrency, then reads at 1M
 * stored spans (trace by id, trace list). Run: `npm run bench -- ingest`.
 */
export async function benchIngest(opts: { concurrency: number; seconds: number; spansPerTrace: number; targetSpans: number; reads: number }) {
  const svc = await startBenchService();
  const headers = { 'content-type': 'application/json', 'x-project-id': svc.projectId };
  const url = `${svc.apiUrl}/api/traces/ingest`;
  const ids: string[] = [];
  let seq = 0;
  let spansSent = 0;

  // Bodies are built once and only their trace ids change: the load generator shares the two
  // cores with the service, and building 10-40 KB of JSON per request would measure the client.
  const pool = (spans: number) =>
    Array.from({ length: 64 }, (_, i) => JSON.stringify(agentTrace('TRACE-ID', spans, Date.now() - 60_000 + i, i)));
  const loadPool = pool(opts.spansPerTrace);

  async function runLoad(untilMs: number, untilSpans: number, record: number[] | null, bodies = loadPool, spansPerBody = opts.spansPerTrace) {
    const statuses: Record<number, number> = {};
    const worker = async () => {
      while (Date.now() < untilMs && spansSent < untilSpans) {
        const n = seq++;
        const id = `bench-${n.toString(16).padStart(8, '0')}`;
        const body = bodies[n % bodies.length].replaceAll('TRACE-ID', id);
        const t = performance.now();
        const status = await post(url, body, headers);
        if (record) record.push(performance.now() - t);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === 201) {
          spansSent += spansPerBody;
          ids.push(id);
        }
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    return statuses;
  }

  const latencies: number[] = [];
  const cpu0 = cpuSeconds(svc.child.pid!);
  const t0 = performance.now();
  const statuses = await runLoad(Date.now() + opts.seconds * 1000, Infinity, latencies);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(svc.child.pid!) - cpu0;
  const ingest = {
    concurrency: opts.concurrency,
    spans_per_trace: opts.spansPerTrace,
    seconds: Math.round(elapsed * 10) / 10,
    spans_per_s: Math.round(spansSent / elapsed),
    traces_per_s: Math.round(ids.length / elapsed),
    latency_ms: summarize(latencies),
    statuses,
    server_cpu_cores: Math.round((cpu / elapsed) * 100) / 100,
    server_rss_mb: rssMb(svc.child.pid!),
  };
  console.log(JSON.stringify({ phase: 'ingest', ...ingest }));

  const fillStart = performance.now();
  // The fill only sets up 1M stored spans for the reads: larger traces get there sooner.
  await runLoad(Infinity, opts.targetSpans, null, pool(50), 50);
  console.log(JSON.stringify({ phase: 'fill', stored_spans: spansSent, seconds: Math.round((performance.now() - fillStart) / 1000) }));

  const readHeaders = { 'x-project-id': svc.projectId };
  const byId: number[] = [];
  for (let i = 0; i < opts.reads; i++) {
    const id = ids[Math.floor(Math.random() * ids.length)];
    const t = performance.now();
    const res = await getJson(`${svc.apiUrl}/api/traces/${id}`, readHeaders);
    byId.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`trace ${id}: ${res.status}`);
  }
  const list: number[] = [];
  const listFiltered: number[] = [];
  for (let i = 0; i < Math.max(20, opts.reads / 5); i++) {
    let t = performance.now();
    const res = await getJson(`${svc.apiUrl}/api/traces?limit=50&offset=${(i % 5) * 50}`, readHeaders);
    list.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`list: ${res.status}`);
    t = performance.now();
    await getJson(`${svc.apiUrl}/api/traces?status=error&limit=50`, readHeaders);
    listFiltered.push(performance.now() - t);
  }
  const reads = { stored_spans: spansSent, trace_by_id_ms: summarize(byId), trace_list_ms: summarize(list), trace_list_status_filter_ms: summarize(listFiltered) };
  console.log(JSON.stringify({ phase: 'reads', ...reads }));
  await svc.stop();
  return { ingest, reads };
}
