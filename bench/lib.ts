import fs from 'node:fs';
import { Agent, request } from 'undici';

/** Shared pieces of the benchmarks: percentiles, a keep-alive HTTP client, process CPU, payloads. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export function summarize(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? NaN),
  };
}

export const agent = new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 60_000 });

export async function post(url: string, body: string | Uint8Array, headers: Record<string, string>): Promise<number> {
  const res = await request(url, { method: 'POST', body, headers, dispatcher: agent });
  await res.body.dump();
  return res.statusCode;
}

export async function getJson(url: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const res = await request(url, { method: 'GET', headers, dispatcher: agent });
  return { status: res.statusCode, body: await res.body.json() };
}

/** user+system CPU seconds of a process, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

const WORDS = 'the agent called a tool to search the knowledge base and then summarized the results for the user'.split(' ');

/** Deterministic filler text of about `bytes` bytes. */
export function text(bytes: number, seed: number): string {
  let out = '';
  let i = seed;
  while (out.length < bytes) out += `${WORDS[i++ % WORDS.length]} `;
  return out.slice(0, bytes);
}

/**
 * What agents write (issue 25's realistic traffic): markdown with headings, blank lines, lists,
 * code fences, JSON tool arguments, quotes, tabs, emoji and several scripts. Every escape the row
 * formats have to make (line breaks, tabs, backslashes, quotes) occurs in it.
 */
const AGENT_PARAGRAPHS = [
  '## Summary\n\nThe customer asked about a refund for order **#48213**. I checked the policy and the order history.',
  '- Order placed: 2026-11-02\n- Delivered: 2026-11-05\n- Refund window: 30 days',
  '```ts\nconst refund = await orders.refund({ id: "48213", reason: "damaged" });\n\nif (!refund.ok) throw new Error(refund.error);\n```',
  'Tool call `lookup_customer` returned:\n\n```json\n{"customer_id": "c-1192", "tier": "gold", "tags": ["vip", "eu"], "notes": "prefers \\"email\\""}\n```',
  '> Quoted from the policy:\n> Items damaged in transit are refunded in full.\n\nSo the refund applies. ✅ 🎉 👩‍💻',
  'مرحبا، تم استلام طلبك وسنعالج الاسترداد خلال ثلاثة أيام عمل.\n\nお問い合わせありがとうございます。返金手続きを開始しました。',
  '| field\t| value |\n|---|---|\n| status\t| approved |\n| path | C:\\\\orders\\\\48213 |',
  'Next steps:\r\n1. Email the label.\r\n2. Close the ticket.\r\n\r\nHindi: धन्यवाद! Hebrew: תודה רבה.',
];

/** Deterministic agent-like text of about `bytes` UTF-16 units, cut on a character boundary. */
export function agentText(bytes: number, seed: number): string {
  let out = '';
  let i = seed;
  while (out.length < bytes) out += `${AGENT_PARAGRAPHS[i++ % AGENT_PARAGRAPHS.length]}\n\n`;
  const cut = out.slice(0, bytes);
  return cut.isWellFormed() ? cut : cut.slice(0, -1);
}

/**
 * Sizes of the large text fields of a generated span, in bytes. The issue-7 shape (the default of
 * every scenario) is ~1.5 KB prompts / tool arguments and a smaller output: about 2 KB per span on
 * the wire. `legacy` is the shape of the earlier benchmarks (1-4 KB each way, ~4 KB per span).
 */
export interface SpanSize {
  name: string;
  /** Bytes of prompt / tool arguments text of span `seed`. */
  input(seed: number): number;
  /** Bytes of completion / tool result text of span `seed`. */
  output(seed: number): number;
  /** The text itself (default: filler words on one line). */
  text?(bytes: number, seed: number): string;
}

export const SPAN_SIZES: Record<string, SpanSize> = {
  '2k': { name: '2k', input: () => 1536, output: () => 256 },
  legacy: { name: 'legacy', input: (seed) => 1024 + (seed % 4) * 1024, output: (seed) => 1024 + (seed % 2) * 1024 },
  /** The 2k sizes with what agents really write (agentText): multi-paragraph markdown, code, JSON, several scripts. */
  agent: { name: 'agent', input: () => 1536, output: () => 256, text: agentText },
};

/** The text of a span of this size. */
export const sizedText = (size: SpanSize, bytes: number, seed: number): string => (size.text ?? text)(bytes, seed);

export function spanSize(name = '2k'): SpanSize {
  const size = SPAN_SIZES[name];
  if (!size) throw new Error(`unknown span size '${name}'; one of: ${Object.keys(SPAN_SIZES).join(', ')}`);
  return size;
}

/** A JSON ingest body shaped like an agent run: a root, then alternating LLM and tool calls. */
export function agentTrace(traceId: string, spans: number, start: number, seed: number, size = spanSize()) {
  const list: Array<Record<string, unknown>> = [
    {
      span_id: `${traceId}-0`,
      name: 'agent.run',
      type: 'span',
      start_time: start,
      end_time: start + spans * 100,
      attributes: { 'agent.name': 'support-bot', user_id: `u${seed % 1000}` },
    },
  ];
  for (let i = 1; i < spans; i++) {
    const llm = i % 2 === 1;
    list.push({
      span_id: `${traceId}-${i}`,
      parent_span_id: `${traceId}-0`,
      name: llm ? 'chat gpt-4o' : 'tool search',
      type: llm ? 'generation' : 'tool',
      start_time: start + i * 100,
      end_time: start + i * 100 + 80,
      input: sizedText(size, size.input(seed + i), seed + i),
      output: sizedText(size, size.output(seed + i), seed + i + 7),
      attributes: llm
        ? { model: 'gpt-4o', input_tokens: 400 + i, output_tokens: 120 + i, temperature: 0.2, stop_reason: 'stop', 'llm.provider': 'openai' }
        : { tool_name: 'search', tool_status: 'success', 'tool.query': 'refund policy', skill_category: 'retrieval', selection_confidence: 0.9 },
    });
  }
  return {
    trace_id: traceId,
    name: 'support-bot.run',
    status: seed % 20 === 0 ? 'error' : 'ok',
    duration_ms: spans * 100,
    start_time: start,
    attributes: { env: 'bench' },
    spans: list,
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Busy CPU seconds of the whole machine (all processes), from /proc/stat. */
export function machineBusySeconds(): number {
  const [, ...f] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / 100;
}

/**
 * Meters the service process over a phase: its CPU (all threads, from /proc), peak RSS sampled
 * every 250 ms, the load generator's own CPU, and the CPU of every other process on the machine
 * (another job running meanwhile shows up there: the noise indicator).
 */
export function meter(pid: number) {
  const t0 = performance.now();
  const cpu0 = cpuSeconds(pid);
  const busy0 = machineBusySeconds();
  const client0 = process.cpuUsage();
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // the process is gone; the last sample stands
    }
  }, 250);
  return {
    /** Figures since the meter started; `spans` gives the per-span cost. */
    read(spans?: number) {
      const s = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(pid) - cpu0;
      const c = process.cpuUsage(client0);
      const client = (c.user + c.system) / 1e6;
      const other = Math.max(0, machineBusySeconds() - busy0 - cpu - client);
      peak = Math.max(peak, rssMb(pid));
      return {
        seconds: round(s, 1),
        server_cpu_s: round(cpu),
        server_cpu_cores: round(cpu / s),
        server_cpu_ms_per_1k_spans: spans ? round((cpu * 1e6) / spans, 1) : null,
        server_rss_mb: rssMb(pid),
        server_peak_rss_mb: peak,
        client_cpu_cores: round(client / s),
        other_processes_cpu_cores: round(other / s),
      };
    },
    stop: () => clearInterval(timer),
  };
}

/** Figures of a metered phase ({@link meter}'s `read`). */
export type MeterReading = ReturnType<ReturnType<typeof meter>['read']>;

/**
 * The service's side of a load phase as the ingest benchmarks report it: CPU and memory over the
 * load (`load`) and the whole phase (`total`), and, for bench/profile-summary.ts, the service's pid
 * with its whole-life CPU.
 */
export function serverFigures(pid: number, load: MeterReading, total: MeterReading) {
  return {
    server_cpu_cores: load.server_cpu_cores,
    server_cpu_ms_per_1k_spans: total.server_cpu_ms_per_1k_spans,
    server_rss_mb: { after_load: load.server_rss_mb, peak: total.server_peak_rss_mb },
    client_cpu_cores: load.client_cpu_cores,
    other_processes_cpu_cores: load.other_processes_cpu_cores,
    service_pid: pid,
    server_cpu_s_lifetime: cpuSeconds(pid),
    server_threads_cpu_s_lifetime: threadCpuSeconds(pid),
  };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The median of several runs' results, field by field: numbers become their median, objects are
 * merged recursively, anything else (strings, arrays, nulls) is taken from the first run.
 */
export function medianOf(runs: unknown[]): unknown {
  const present = runs.filter((r) => r !== undefined && r !== null);
  if (present.length === 0) return runs[0];
  if (present.every((r) => typeof r === 'number')) return round(median(present), 2);
  if (present.every((r) => typeof r === 'object' && !Array.isArray(r))) {
    const keys = [...new Set(present.flatMap((r) => Object.keys(r)))];
    return Object.fromEntries(keys.map((k) => [k, medianOf(present.map((r) => (r as Record<string, unknown>)[k]))]));
  }
  return present[0];
}

/** Numeric leaves of an object as `a.b.c` paths, for the runs table. */
export function numericLeaves(value: unknown, prefix = ''): Array<[string, number]> {
  if (typeof value === 'number') return [[prefix, value]];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => numericLeaves(v, prefix ? `${prefix}.${k}` : k));
}

/** A GET timed to its last byte (the body is not parsed in the timing): status, ms, bytes, text. */
export async function getTimed(url: string, headers: Record<string, string>): Promise<{ status: number; ms: number; bytes: number; text: string }> {
  const t = performance.now();
  const res = await request(url, { method: 'GET', headers, dispatcher: agent, bodyTimeout: 600_000, headersTimeout: 600_000 });
  const text = await res.body.text();
  return { status: res.statusCode, ms: performance.now() - t, bytes: Buffer.byteLength(text), text };
}

/**
 * CPU seconds of a process's threads so far, by thread name (digits dropped): `main` is the
 * JS thread; chDB's are ClickHouse's (ThreadPool: query execution, MergeMutate: background
 * merges, ...); `node#k` are the other threads Node names `node`, in creation order: V8's
 * platform workers (concurrent GC, compilation) and libuv's pool (where chDB runs its async
 * queries: an insert's parsing happens there).
 */
export function threadCpuSeconds(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of threadTimes(pid)) out[t.name] = round((out[t.name] ?? 0) + t.s);
  return out;
}

/** The threads of a process by id, in creation order, named as {@link threadCpuSeconds} names them, with their CPU seconds so far. */
export function threadTimes(pid: number): Array<{ tid: number; name: string; s: number }> {
  const out: Array<{ tid: number; name: string; s: number }> = [];
  let nodeThreads = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`).sort((x, y) => Number(x) - Number(y))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      let name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[\d:]+$/, '') || 'unnamed';
      // Node's own threads are all `node`: numbered in creation order (V8's platform workers start
      // before libuv's pool, which runs chDB's async queries) so they can be told apart.
      if (name === 'node') name = `node#${++nodeThreads}`;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ tid: Number(tid), name, s: (Number(f[11]) + Number(f[12])) / 100 });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/**
 * Waits (at most `maxSeconds`) until the machine is quiet: less than `cores` of CPU busy over a
 * 3 s window, with no service of ours running. Returns the last window's busy cores.
 */
export async function waitQuiet(maxSeconds: number, cores = 0.25): Promise<number> {
  const until = performance.now() + maxSeconds * 1000;
  for (;;) {
    const b0 = machineBusySeconds();
    await sleep(3000);
    const busy = (machineBusySeconds() - b0) / 3;
    if (busy < cores || performance.now() >= until) return round(busy);
  }
}

/**
 * A fixed single-threaded CPU workload (JSON round trips of an agent trace), timed: on a VM whose
 * host is busy the same work takes longer, which no counter inside the VM shows. Compare runs'
 * figures only when their probe times are close.
 */
export function speedProbeMs(): number {
  const body = agentTrace('probe', 10, 0, 1);
  const times: number[] = [];
  for (let r = 0; r < 8; r++) {
    const t = performance.now();
    let n = 0;
    for (let i = 0; i < 400; i++) n += (JSON.parse(JSON.stringify(body)) as { spans: unknown[] }).spans.length;
    if (n !== 4000) throw new Error('speed probe');
    if (r >= 3) times.push(performance.now() - t); // the first rounds warm the JIT up
  }
  return round(median(times), 1);
}

/** The t-th trace's id, spread over the key space (base 36, then a multiplicative hash) as real ids are. */
export const spreadTraceId = (t: number) => `tr-${t.toString(36)}-${((t * 2654435761) % 4294967296).toString(16)}`;

/** Span s of a trace whose spans all hang from span 0, its root: the ids a span record needs. */
export const flatTreeSpanIds = (projectId: string, traceId: string, s: number) => ({
  project_id: projectId,
  trace_id: traceId,
  span_id: `${traceId}-${s}`,
  parent_span_id: s === 0 ? null : `${traceId}-0`,
});
