import { projectIdFrom, requireProjectId, type HeaderBag, type QueryBag } from '../../core/project-context.js';

/**
 * The project of an export: `x-project-id` / `x-workspace-id` (HTTP header or gRPC metadata),
 * or `project_id` / `workspace_id` in the query, else the receiver's default project. Throws the
 * SPEC's 400 `Workspace context required` when there is none, and rejects malformed ids.
 */
export function exportProjectId(headers: HeaderBag, query: QueryBag, defaultProjectId: string | undefined): string {
  const id = projectIdFrom(headers, query) ?? defaultProjectId;
  return requireProjectId(id === undefined ? {} : { 'x-project-id': id });
}
