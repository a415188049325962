import { BadRequestError } from './errors.js';

/**
 * Every request names its project: header `x-project-id` (also `x-workspace-id`), or query
 * `project_id` / `workspace_id`. The same rule serves HTTP requests and gRPC metadata.
 */
export type HeaderBag = Record<string, string | string[] | undefined>;
export type QueryBag = Record<string, string | string[] | undefined>;

export const PROJECT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  const trimmed = v?.trim();
  return trimmed ? trimmed : undefined;
}

/** Header names are looked up lower-case (Node and grpc-js both lower-case them). */
export function projectIdFrom(headers: HeaderBag, query: QueryBag = {}): string | undefined {
  return first(headers['x-project-id']) ?? first(headers['x-workspace-id']) ?? first(query['project_id']) ?? first(query['workspace_id']);
}

/** Like {@link projectIdFrom} but throws the SPEC's 400 `Workspace context required` when absent. */
export function requireProjectId(headers: HeaderBag, query: QueryBag = {}): string {
  const id = projectIdFrom(headers, query);
  if (!id) throw new BadRequestError('Workspace context required', 'WORKSPACE_REQUIRED');
  if (!PROJECT_ID_PATTERN.test(id)) {
    throw new BadRequestError('Invalid project id: use 1-128 characters of letters, digits, ".", "_", ":" or "-"', 'INVALID_PROJECT_ID');
  }
  return id;
}
