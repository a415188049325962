import { z } from 'zod';

/**
 * The SPEC's error bodies as one schema (api/middleware/errors.ts, errorBody; docs/api.md,
 * "Errors"): the validation form (422: `details` a list of {field, message}), the reference form
 * (404: `message`, `code`, `status`) and the general form (`status`, with `details`, `hint` or
 * `retry_after` where they apply). Every route's 4xx and 5xx in the OpenAPI document.
 */
export const ErrorBodySchema = z
  .object({
    error: z.string().describe('What went wrong, for a person'),
    code: z.string().optional().describe('A stable machine-readable code (VALIDATION_ERROR, TRACE_NOT_FOUND, RUN_STATE_CONFLICT, ...)'),
    message: z.string().optional(),
    status: z.number().int().optional().describe('The HTTP status, repeated'),
    details: z
      .union([z.string(), z.array(z.object({ field: z.string(), message: z.string() }))])
      .optional()
      .describe('422: one {field, message} per problem; 401, 403 and 5xx: text'),
    hint: z.string().optional().describe('401/403: what credential would do'),
    retry_after: z.number().optional().describe('429 from a full ingest buffer: seconds to wait (also in Retry-After)'),
  })
  .meta({ id: 'ErrorBody' });
