import type { z } from 'zod';
import { ValidationError, type FieldIssue } from './errors.js';

/** `['spans', 2, 'type']` -> `spans[2].type`. */
export function fieldName(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(body)';
}

function issueMessage(issue: z.core.$ZodIssue, input: unknown): string {
  if (input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) return 'is required';
  if (issue.code === 'invalid_value' && 'values' in issue) return `must be one of: ${issue.values.map(String).join(', ')}`;
  return issue.message;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let cur = root;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/** Parses with the schema or throws the SPEC's 422 with one {field, message} per problem. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues: FieldIssue[] = result.error.issues.map((issue) => ({
    field: fieldName(issue.path),
    message: issueMessage(issue, valueAt(input, issue.path)),
  }));
  throw new ValidationError(issues);
}
