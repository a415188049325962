import type { z } from 'zod';
import type { CasesAdded, CasesImported, ExportFormat, FromTracesSchema, ImportSchema } from '../core/model/dataset.js';
import { enc, type EndpointCalls } from './endpoint-calls.js';

/*
 * A suite's cases from production and files (docs/api.md "Datasets from production"): parts of
 * the suites group of {@link AgentEvalApi}, over its calls.
 */

export const datasetEndpoints = (c: EndpointCalls) => ({
  /**
   * POST /api/suites/{id}/cases/from-traces: traces by id, one span, a session as a conversation,
   * or a trace filter (newest first, at most `cap`) as new cases; `preview: true` writes nothing.
   * With `idempotencyKey`, sending it again adds the cases once (docs/api.md, "Retries").
   */
  addFromTraces: (id: string, body: z.input<typeof FromTracesSchema>, opts: { idempotencyKey?: string } = {}) =>
    c.create<CasesAdded>(`/api/suites/${enc(id)}/cases/from-traces`, body, opts.idempotencyKey),
  /** POST /api/suites/{id}/cases/import: a CSV or JSONL file's rows as cases; bad rows come back in `errors`. */
  importCases: (id: string, body: z.input<typeof ImportSchema>, opts: { idempotencyKey?: string } = {}) =>
    c.create<CasesImported>(`/api/suites/${enc(id)}/cases/import`, body, opts.idempotencyKey),
  /** GET /api/suites/{id}/versions/{v}/export: the version as a JSONL, CSV or YAML file, as text. */
  exportVersion: (id: string, version: number, format: ExportFormat) =>
    c.request<string>('GET', `/api/suites/${enc(id)}/versions/${version}/export`, { query: { format }, asText: true }),
});
