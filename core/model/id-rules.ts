/**
 * The id checks without the schemas: browser-safe (no zod, no Node), so the dashboard uses these
 * and not a copy. core/model/ids.ts (the one id rule, docs/api.md "Refused at the door"),
 * agent.ts (isUuid) and keyset-cursor.ts build on them.
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

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` has the form of a UUID (an agent, suite, run or user id). */
export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}

/** The alphabet of a keyset cursor (base64url, core/model/keyset-cursor.ts). */
export const CURSOR_ALPHABET = /^[A-Za-z0-9_-]+$/;

/** Whether `text` may be a keyset cursor a list issued: its alphabet, at most `max` characters (what a page's URL keeps). */
export function isCursorText(text: string, max = 512): boolean {
  return text.length > 0 && text.length <= max && CURSOR_ALPHABET.test(text);
}
