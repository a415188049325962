import { FromTracesSchema, ImportSchema } from '../../../core/model/dataset.js';
import { ExportQuerySchema } from '../../routes/suite-cases.js';
import { CasesAddedSchema, CasesImportedSchema } from '../../../core/model/answers-evals.js';
import { defineRoutes } from '../route-spec.js';

/** Datasets from production: a suite's cases from traces and files, a version exported (api/routes/suite-cases.ts; api/openapi/registry.ts). */
const added = CasesAddedSchema;
const imported = CasesImportedSchema;

export const DATASET_ROUTES = defineRoutes([
  {
    method: 'post',
    path: '/api/suites/{id}/cases/from-traces',
    operationId: 'addSuiteCasesFromTraces',
    summary: 'Add traces, a span, a session or a filtered batch of traces as cases (a new version; `preview` writes none)',
    description: 'docs/api.md, "Datasets from production". Also needs `traces:read`.',
    tag: 'Suites',
    access: 'evals:write',
    body: FromTracesSchema,
    answers: { 200: added, 201: added },
    idempotent: true,
    errors: [400, 404, 409],
  },
  {
    method: 'post',
    path: '/api/suites/{id}/cases/import',
    operationId: 'importSuiteCases',
    summary: 'Import cases from CSV or JSONL text through a column mapping; bad rows are reported (a new version)',
    tag: 'Suites',
    access: 'evals:write',
    body: ImportSchema,
    answers: { 200: imported, 201: imported },
    idempotent: true,
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/suites/{id}/versions/{version}/export',
    operationId: 'exportSuiteVersion',
    summary: 'A suite version as a JSONL, CSV or YAML file',
    tag: 'Suites',
    access: 'evals:read',
    query: ExportQuerySchema,
    answers: {
      200: { contentType: 'application/x-ndjson', description: 'One case per line (text/csv with format=csv, application/yaml with format=yaml)' },
    },
    errors: [400, 404],
  },
]);
