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
  return { count: sorted.length, p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? NaN) };
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

/** A JSON ingest body shaped like an agent run: a root, LLM calls and tool calls with 1-4 KB inputs/outputs. */
export function agentTrace(traceId: string, spans: number, start: number, seed: number) {
  const list: Array<Record<string, unknown>> = [
    { span_id: `${traceId}-0`, name: 'agent.run', type: 'span', start_time: start, end_time: start + spans * 100, attributes: { 'agent.name': 'support-bot', user_id: `u${seed % 1000}` } },
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
      input: text(1024 + ((seed + i) % 3) * 1024, seed + i),
      output: text(1024 + ((seed + i) % 2) * 1024, seed + i + 7),
      attributes: llm
        ? { model: 'gpt-4o', input_tokens: 400 + i, output_tokens: 120 + i, temperature: 0.2, stop_reason: 'stop', 'llm.provider': 'openai' }
        : { tool_name: 'search', tool_status: 'success', 'tool.query': 'refund policy', skill_category: 'retrieval', selection_confidence: 0.9 },
    });
  }
  return { trace_id: traceId, name: 'support-bot.run', status: seed % 20 === 0 ? 'error' : 'ok', duration_ms: spans * 100, start_time: start, attributes: { env: 'bench' }, spans: list };
}
