import { z } from 'zod';
import { idProblem } from './id-rules.js';
import { refusing } from './refusing.js';

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

export { CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS, NOT_WELL_FORMED, hasControlCharacter, idProblem } from './id-rules.js';

/**
 * Adds the id rule to a string schema (after its own trims and bounds). It covers what PostgreSQL
 * `text` cannot hold (U+0000, a lone surrogate), so an id needs no pgText besides.
 */
export function asId<S extends z.ZodType<string>>(schema: S) {
  return refusing(schema, idProblem);
}

/** An id of 1-`max` characters under the id rule. */
export function idString(max: number) {
  return asId(z.string().min(1).max(max));
}
