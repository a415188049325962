import type { ClickHouseClient } from '../../core/store/clickhouse/client.js';

/**
 * The million-span volume of the export tests (issue 31: "exports of 1M spans in each format
 * streamed with bounded memory, read back and compared"). Writing a million spans through the
 * batch writer takes minutes here (~440 s), so ClickHouse writes them itself from `numbers()`,
 * straight into the table the export reads; each span's texts are a function of its number,
 * mirrored here in JS, so every exported row can be checked as it streams by.
 *
 * The texts carry what JSON Lines and CSV must escape: blank lines, CRLF, double quotes, commas,
 * a tab, a backslash, a code fence, an emoji and Hebrew.
 */
const PARTS = ['## Step ', '\n\nThe "answer", with a comma\r\nand a\ttab \\ 🚀 שלום.\n\n```ts\nconst x = ', ';\n```\n'] as const;

export const SPANS_PER_VOLUME_TRACE = 10;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

export const volumeTraceId = (n: number) => `mx-${pad(Math.floor(n / SPANS_PER_VOLUME_TRACE), 7)}`;
export const volumeSpanId = (n: number) => `${volumeTraceId(n)}-${pad(n % SPANS_PER_VOLUME_TRACE, 2)}`;
export const volumeInput = (n: number) => `${PARTS[0]}${n}${PARTS[1]}${n}${PARTS[2]}`;
export const volumeOutput = (n: number) => `Done ${n}.\r\n\r\n${volumeInput(n)}`;

/** Writes spans 0..count-1 of `project`, span n starting n ms after `since` (export order is trace, span: n's order). */
export async function seedVolumeSpans(client: ClickHouseClient, project: string, count: number, since: number): Promise<void> {
  const input = `concat({p0:String}, toString(number), {p1:String}, toString(number), {p2:String})`;
  await client.command({
    query: `INSERT INTO agent_eval.spans (project_id, trace_id, span_id, parent_span_id, name, span_type, status, start_time, end_time, duration_ms, model, input, output, input_tokens, output_tokens, attributes, resource_attributes)
      SELECT {project:String},
        concat('mx-', leftPad(toString(intDiv(number, ${SPANS_PER_VOLUME_TRACE})), 7, '0')) AS trace_id,
        concat(trace_id, '-', leftPad(toString(number % ${SPANS_PER_VOLUME_TRACE}), 2, '0')),
        if(number % ${SPANS_PER_VOLUME_TRACE} = 0, '', concat(trace_id, '-00')),
        if(number % ${SPANS_PER_VOLUME_TRACE} = 0, 'agent run', 'step'),
        'generation', 'ok',
        fromUnixTimestamp64Milli(toInt64({since:Int64} + number), 'UTC'),
        fromUnixTimestamp64Milli(toInt64({since:Int64} + number + 20), 'UTC'),
        20, 'gpt-4o', ${input}, concat('Done ', toString(number), '.\\r\\n\\r\\n', ${input}), 100, 50,
        map('step', toString(number % ${SPANS_PER_VOLUME_TRACE})), map('service.name', 'export-volume')
      FROM numbers({count:UInt64})`,
    query_params: { project, since, count, p0: PARTS[0], p1: PARTS[1], p2: PARTS[2] },
    clickhouse_settings: { max_insert_block_size: '100000' },
  });
}

/** Checks an exported row against span n as it arrives; keeps nothing. */
export function checkVolumeSpan(r: { span_id: string; input: string; output: string }, n: number): void {
  if (r.span_id !== volumeSpanId(n) || r.input !== volumeInput(n) || r.output !== volumeOutput(n))
    throw new Error(`row ${n} (${r.span_id}) differs from what was written`);
}

/**
 * Peak RSS of this process (the service's and the test's) while `work` runs, sampled every 20 ms:
 * its growth over what it was before, and the growth after `mark()` was called (a quarter through).
 */
export async function peakRss<T>(work: (mark: () => void) => Promise<T>): Promise<{ result: T; growthMb: number; afterMarkMb: number; peakMb: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  let atMark = before;
  const sample = () => (peak = Math.max(peak, process.memoryUsage.rss()));
  const timer = setInterval(sample, 20);
  try {
    const result = await work(() => (atMark = sample()));
    sample();
    return { result, growthMb: (peak - before) / 2 ** 20, afterMarkMb: (peak - atMark) / 2 ** 20, peakMb: peak / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}
