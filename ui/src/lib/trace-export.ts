import { getText } from './api.js';

/** What the traces list's bulk export writes: each picked trace's summary row, or its spans. */
export type BulkExportKind = 'traces' | 'spans';
export type BulkExportFormat = 'jsonl' | 'csv';

/** Traces exported side by side. */
const PARALLEL = 4;

/** A CSV text without its header row (the first line: the header holds no line breaks). */
export function withoutCsvHeader(csv: string): string {
  const end = csv.indexOf('\r\n');
  return end < 0 ? '' : csv.slice(end + 2);
}

/**
 * One file of the picked traces, through the streamed export (GET /api/exports/{kind}, docs/api.md
 * "Bulk export") one trace at a time, following its cursor: the rows come as ClickHouse wrote
 * them, byte for byte, in the order the traces were picked. CSV keeps one header row.
 */
export async function exportTraces(traceIds: readonly string[], kind: BulkExportKind, format: BulkExportFormat, signal?: AbortSignal): Promise<Blob> {
  const parts: string[] = new Array<string>(traceIds.length).fill('');
  let next = 0;
  async function worker(): Promise<void> {
    for (let i = next++; i < traceIds.length; i = next++) {
      let cursor: string | undefined;
      let text = '';
      do {
        const page = await getText(`/api/exports/${kind}`, { format, trace_id: traceIds[i], cursor }, { signal });
        text += cursor !== undefined && format === 'csv' ? withoutCsvHeader(page.text) : page.text;
        cursor = page.headers.get('x-next-cursor') ?? undefined;
      } while (cursor);
      parts[i] = text;
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, traceIds.length) }, worker));
  const body = format === 'csv' ? parts.map((p, i) => (i === 0 ? p : withoutCsvHeader(p))).join('') : parts.join('');
  return new Blob([body], { type: format === 'csv' ? 'text/csv' : 'application/x-ndjson' });
}

/** Has the browser save `blob` as `filename` (a link to it clicked, then let go). */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
