import type { z } from 'zod';
import type { CreateExportJobSchema, ExportJobList, ExportJobView, ExportKind } from '../core/model/export.js';
import { enc, type EndpointCalls } from './endpoint-calls.js';

/**
 * Bulk export's jobs (docs/api.md, "Bulk export"): a part of {@link AgentEvalApi}, over its calls.
 * The streamed exports and file downloads are bytes, not JSON: the Node client's
 * `exports.stream()` and `exports.download()` (sdk/export-stream.ts).
 */
export const exportEndpoints = (c: EndpointCalls) => ({
  /** POST /api/exports: a background job writing one file (JSON Lines, CSV or Parquet); 202 with the job. */
  create: (body: z.input<typeof CreateExportJobSchema>) => c.post<ExportJobView>('/api/exports', body),
  /** GET /api/exports/{id}: the job's status, rows, size and expiry. */
  get: (id: string) => c.get<ExportJobView>(`/api/exports/${enc(id)}`),
  /** GET /api/exports: the project's jobs of this process, newest first. */
  list: () => c.get<ExportJobList>('/api/exports'),
});

/** The query of GET /api/exports/{kind}: the kind's filters (docs/api.md), the format, `limit` and `cursor`. */
export type ExportStreamParams = { format?: 'jsonl' | 'csv'; limit?: number; cursor?: string } & Record<string, string | number | boolean | undefined>;

export type { ExportKind };
