import { CreateExportJobSchema, EXPORT_CONTENT_TYPES, EXPORT_KINDS, ExportJobListSchema, ExportJobViewSchema } from '../../../core/model/export.js';
import { streamQuery } from '../../routes/exports.js';
import { defineRoutes, type RouteSpec, routeGroup } from '../route-spec.js';

/** Bulk export (api/routes/exports.ts, docs/api.md "Bulk export"; api/openapi/registry.ts). */
const exports = routeGroup('Export', 'traces:read');

export const EXPORT_ROUTES = defineRoutes([
  ...EXPORT_KINDS.map((kind): RouteSpec => ({
    method: 'get',
    path: `/api/exports/${kind}`,
    operationId: `export${kind[0].toUpperCase()}${kind.slice(1)}`,
    summary: `Stream ${kind} as JSON Lines or CSV, up to \`limit\` rows; X-Next-Cursor names where the next request starts`,
    tag: 'Export',
    access: 'traces:read',
    query: streamQuery(kind),
    answers: {
      200: {
        contentType: EXPORT_CONTENT_TYPES.jsonl,
        description: `The ${kind}, one per line (JSON Lines; text/csv with format=csv) or row (RFC 4180 CSV with a header row); X-Export-Rows: the rows planned; X-Next-Cursor: present when more follow`,
      },
    },
    errors: [400],
  })),
  exports.post('/api/exports', 'createExport', 'Start an export job writing one file (JSON Lines, CSV or Parquet)', {
    body: CreateExportJobSchema,
    answers: { 202: ExportJobViewSchema },
    errors: [409],
  }),
  exports.get('/api/exports', 'listExports', "The project's export jobs of this process, newest first", {
    answers: { 200: ExportJobListSchema },
    errors: [409],
  }),
  exports.get('/api/exports/{id}', 'getExport', "An export job's status, rows, size and expiry", {
    answers: { 200: ExportJobViewSchema },
    errors: [404, 409],
  }),
  exports.get('/api/exports/{id}/download', 'downloadExport', "A succeeded export job's file", {
    answers: {
      200: {
        contentType: EXPORT_CONTENT_TYPES.parquet,
        description: 'The file in its format (application/vnd.apache.parquet, application/x-ndjson or text/csv); X-Export-Rows: its rows',
      },
    },
    errors: [404, 409],
  }),
]);
