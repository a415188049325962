import { FromTracesSchema, ImportSchema } from '../../../core/model/dataset.js';
import { ExportQuerySchema } from '../../routes/suite-cases.js';
import { CasesAddedSchema, CasesImportedSchema } from '../../../core/model/answers-evals.js';
import { defineRoutes, routeGroup } from '../route-spec.js';

/** Datasets from production: a suite's cases from traces and files, a version exported (api/routes/suite-cases.ts; api/openapi/registry.ts). */
const added = CasesAddedSchema;
const imported = CasesImportedSchema;

const suites = routeGroup('Suites', 'evals:write');

export const DATASET_ROUTES = defineRoutes([
  suites.post(
    '/api/suites/{id}/cases/from-traces',
    'addSuiteCasesFromTraces',
    'Add traces, a span, a session or a filtered batch of traces as cases (a new version; `preview` writes none)',
    {
      description: 'docs/api.md, "Datasets from production". Also needs `traces:read`.',
      body: FromTracesSchema,
      answers: { 200: added, 201: added },
      idempotent: true,
      errors: [400, 404, 409],
    },
  ),
  suites.post(
    '/api/suites/{id}/cases/import',
    'importSuiteCases',
    'Import cases from CSV or JSONL text through a column mapping; bad rows are reported (a new version)',
    { body: ImportSchema, answers: { 200: imported, 201: imported }, idempotent: true, errors: [400, 404] },
  ),
  suites.get('/api/suites/{id}/versions/{version}/export', 'exportSuiteVersion', 'A suite version as a JSONL, CSV or YAML file', {
    access: 'evals:read',
    query: ExportQuerySchema,
    answers: {
      200: { contentType: 'application/x-ndjson', description: 'One case per line (text/csv with format=csv, application/yaml with format=yaml)' },
    },
    errors: [400, 404],
  }),
]);
