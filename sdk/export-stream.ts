import type { ExportKind } from '../core/model/export.js';
import type { ExportStreamParams } from './endpoints-exports.js';
import { ServiceApiError, ServiceUnreachableError } from './errors.js';
import type { Transport } from './http.js';

/**
 * The byte side of bulk export for Node (docs/api.md, "Bulk export", docs/sdk.md): a response's
 * body as it arrives, never parsed or held whole. The JSON side (jobs) is `exports.create/get/list`.
 */
export interface ExportResponse {
  /** Rows the service planned for this response (`X-Export-Rows`). */
  rows: number;
  /** Where the next response starts (`X-Next-Cursor`); null when this one ends the export. */
  nextCursor: string | null;
  /** The bytes: JSON Lines, or CSV with its header row. */
  body: ReadableStream<Uint8Array>;
}

async function open(transport: Transport, path: string, query: Record<string, string | number | boolean | undefined>, signal?: AbortSignal): Promise<Response> {
  const request = `GET ${path}`;
  let res: Response;
  try {
    // No time-out: a large export streams for as long as it takes; the caller's signal ends it.
    res = await fetch(transport.url(path, query), { headers: transport.authHeaders(), signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ServiceUnreachableError(`GET ${transport.baseUrl}${path}`, err);
  }
  if (res.ok && res.body) return res;
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text as it is
  }
  const retry = Number(res.headers.get('retry-after'));
  throw new ServiceApiError({
    status: res.status,
    body,
    request,
    hasKey: Boolean(transport.apiKey),
    retryAfterSeconds: Number.isFinite(retry) && retry > 0 ? retry : undefined,
  });
}

/** Node's side of `client.exports`: streamed exports and job files. */
export const exportStreams = (transportOf: () => Transport) => ({
  /**
   * GET /api/exports/{kind}: up to `limit` rows (default 100,000) from `cursor`, streamed. Follow
   * `nextCursor` for the rest: each response is whole and resumable on its own.
   */
  async stream(kind: ExportKind, params: ExportStreamParams = {}, signal?: AbortSignal): Promise<ExportResponse> {
    const res = await open(transportOf(), `/api/exports/${kind}`, params, signal);
    return { rows: Number(res.headers.get('x-export-rows') ?? 0), nextCursor: res.headers.get('x-next-cursor'), body: res.body! };
  },
  /** GET /api/exports/{id}/download: a succeeded job's file, streamed. */
  async download(id: string, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    return (await open(transportOf(), `/api/exports/${encodeURIComponent(id)}/download`, {}, signal)).body!;
  },
});
