import type { z } from 'zod';

/** `schema`, also refusing a value in which `problemOf` finds a problem (the problem is the issue's message). */
export function refusing<T extends z.ZodType>(schema: T, problemOf: (value: z.output<T>) => string | null | undefined): T {
  return schema.superRefine((value, ctx) => {
    const problem = problemOf(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}
