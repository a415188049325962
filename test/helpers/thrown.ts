import { expect } from 'vitest';
import { AppError, ValidationError, type FieldIssue } from '../../core/errors.js';

/** The AppError `fn` throws; another error is thrown on, and no throw at all fails the test. */
export function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError, and nothing was thrown');
}

/** The field issues of the ValidationError (422) `fn` throws; any other outcome fails the test. */
export function validationIssues(fn: () => unknown): FieldIssue[] {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(ValidationError);
  return (err as ValidationError).issues;
}
