import { z } from 'zod';

/**
 * The one rule for ids (docs/api.md, "Refused at the door"): trace, span and parent span ids,
 * and every id or name a route looks something up by (project, run, suite, agent, scorer, prompt,
 * queue, item, score, feedback ids, user and reviewer ids). An id holds no control character: C0
 * (U+0000-U+001F), DEL (U+007F) or C1 (U+0080-U+009F). PostgreSQL `text` cannot hold U+0000 at
 * all, so a NUL trace id accepted by the analytical store later failed every metadata query that
 * carried it (online rules, queues, run lists); the others are invisible in lists and logs, and
 * make two ids that look the same differ. Nor does an id hold a lone UTF-16 surrogate: it would
 * be stored as U+FFFD and collide with another id.
 *
 * The API applies it to every path segment and query value of /api/* (api/middleware/
 * request-text.ts), to every id field of a body (the zod schemas below and their users), and
 * ingest to every span's ids (collector/ingest.ts).
 */

/** C0 controls, DEL and C1 controls. */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

export const NO_CONTROL_CHARACTERS = 'must not contain control characters (U+0000-U+001F, U+007F-U+009F)';
export const NOT_WELL_FORMED = 'must be well-formed Unicode (no unpaired surrogates)';

/** Whether `text` holds a control character. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTERS.test(text);
}

/** Why `id` cannot be an id (the end of a sentence that starts with its name), or null when it can. */
export function idProblem(id: string): string | null {
  if (CONTROL_CHARACTERS.test(id)) return NO_CONTROL_CHARACTERS;
  if (!id.isWellFormed()) return NOT_WELL_FORMED;
  return null;
}

/**
 * Adds the id rule to a string schema (after its own trims and bounds). It covers what PostgreSQL
 * `text` cannot hold (U+0000, a lone surrogate), so an id needs no pgText besides.
 */
export function asId<S extends z.ZodType<string>>(schema: S) {
  return schema.superRefine((v, ctx) => {
    const problem = idProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** An id of 1-`max` characters under the id rule. */
export function idString(max: number) {
  return asId(z.string().min(1).max(max));
}
