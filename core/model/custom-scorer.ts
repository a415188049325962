import { z } from 'zod';
import { HeadersSchema, isUuid } from './agent.js';
import { ScorerName } from './eval-case.js';
import { HttpUrlSchema } from './http-url.js';
import { pgText } from './pg-json.js';

/**
 * A custom scorer served over HTTP, registered per project like an agent (docs/scorers.md):
 * suites and runs name it like any scorer. The worker POSTs `{input, output, expected, trace,
 * config}` to its endpoint, which answers `{value | score, reason, evidence?}`. Its `headers`
 * (credentials, usually) are write-only, as an agent's are.
 */

/** How the endpoint's `value` reads: a number in 0..1, or true/false (1/0). */
export const SCORER_DATA_TYPES = ['numeric', 'boolean'] as const;
export type ScorerDataType = (typeof SCORER_DATA_TYPES)[number];

/** POST /api/scorers (`dataType`, or `data_type` as the views spell it). */
export const CreateCustomScorerSchema = z.preprocess(
  (body) => {
    if (!body || typeof body !== 'object' || Array.isArray(body) || !('data_type' in body) || 'dataType' in body) return body;
    const { data_type: dataType, ...rest } = body as Record<string, unknown>;
    return { ...rest, dataType };
  },
  z.strictObject({
    name: ScorerName.refine((name) => !isUuid(name), 'must not be a UUID (it would be taken for a scorer id)'),
    endpoint: HttpUrlSchema,
    dataType: z.enum(SCORER_DATA_TYPES).default('numeric'),
    description: pgText(4096).nullish(),
    headers: HeadersSchema.optional(),
  }),
);
export type CreateCustomScorer = z.output<typeof CreateCustomScorerSchema>;

/** What the API returns for a custom scorer: never the header values. */
export interface CustomScorer {
  id: string;
  name: string;
  endpoint: string;
  data_type: ScorerDataType;
  description: string | null;
  header_names: string[];
  created_at: string;
  updated_at: string;
}

/** The whole record, for the worker that calls it. */
export interface CustomScorerRecord extends CustomScorer {
  headers: Record<string, string>;
}

export function toCustomScorerView(record: CustomScorerRecord): CustomScorer {
  const { id, name, endpoint, data_type, description, header_names, created_at, updated_at } = record;
  return { id, name, endpoint, data_type, description, header_names, created_at, updated_at };
}

export interface CustomScorerList {
  scorers: CustomScorer[];
  total: number;
  limit: number;
  offset: number;
}
