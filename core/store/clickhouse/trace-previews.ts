import { TRACE_PREVIEW_CHARS } from '../../model/trace.js';
import { ROOT_PREVIEWS } from './trace-page-sql.js';

type Rows = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

export interface TracePreview {
  input_preview: string | null;
  output_preview: string | null;
}

/** Characters read of each text: enough to fill the preview after whitespace folds. */
const READ_CHARS = TRACE_PREVIEW_CHARS * 4;

/** A text's first {@link TRACE_PREVIEW_CHARS} characters on one line (whitespace folded), `…` when cut; null when blank. */
export function previewText(text: string): string | null {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return null;
  const chars = Array.from(line);
  return chars.length > TRACE_PREVIEW_CHARS ? `${chars.slice(0, TRACE_PREVIEW_CHARS).join('').trimEnd()}…` : line;
}

/** The input and output previews of the given root spans (absent spans left out), by trace id. */
export async function previewsOf(
  rows: Rows,
  projectId: string,
  roots: ReadonlyArray<{ trace_id: string; root_span_id: string }>,
): Promise<Map<string, TracePreview>> {
  const out = new Map<string, TracePreview>();
  if (roots.length === 0) return out;
  const list = await rows<{ trace_id: string; input: string; output: string }>(ROOT_PREVIEWS, {
    project: projectId,
    traces: roots.map((r) => r.trace_id),
    spans: roots.map((r) => r.root_span_id),
    chars: READ_CHARS,
  });
  for (const r of list) out.set(r.trace_id, { input_preview: previewText(r.input), output_preview: previewText(r.output) });
  return out;
}
