/**
 * Failure texts made comparable: what differs from one occurrence of the same failure to the next
 * (ids, numbers, quoted values, URLs, e-mail addresses, whitespace) is replaced by a placeholder,
 * so "timeout after 3012 ms calling https://a/b?id=7" and "timeout after 2990 ms calling
 * https://a/c" read the same. Only a bounded head of the text is looked at, and every pattern here
 * is linear on it (fixed patterns of ours, never a user's).
 */

/** Characters of a text looked at; the rest of a long message rarely names a different failure. */
const HEAD = 2000;
/** Characters of a normalized text kept. */
export const NORMALIZED_MAX = 200;

const REPLACEMENTS: Array<[RegExp, string]> = [
  [/\bhttps?:\/\/[^\s'"<>`]+/gi, '<url>'],
  [/[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}/g, '<email>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'],
  [/\b(?:0x)?[0-9a-f]{8,}\b/gi, '<hex>'],
  [/'[^'\n]{0,300}'|"[^"\n]{0,300}"|`[^`\n]{0,300}`|«[^»\n]{0,300}»/g, "'…'"],
  [/\d+(?:[.,]\d+)*/g, '<n>'],
];

/** Cuts at a character boundary: never half of a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max;
  return text.slice(0, end);
}

/** The comparable form of a failure text (at most NORMALIZED_MAX characters). */
export function normalizeFailureText(text: string): string {
  let out = cut(text, HEAD);
  for (const [pattern, placeholder] of REPLACEMENTS) out = out.replace(pattern, placeholder);
  out = out.replace(/\s+/g, ' ').trim();
  return cut(out, NORMALIZED_MAX);
}

/** A failure's own text as an example shows it: cut, never half a character. */
export function exampleText(text: string, max = 1000): string {
  return text.length <= max ? text : `${cut(text, max)}…`;
}

/**
 * The error's type from its message when no attribute names one: the words before the first colon
 * of the normalized message ("agent answered 500: ..." -> "agent answered <n>"; a URL's colon does
 * not count, it is a placeholder by then); null when there is no colon early in the message.
 */
export function errorTypeOfMessage(message: string): string | null {
  const normalized = normalizeFailureText(message);
  const colon = normalized.indexOf(':');
  if (colon <= 0 || colon > 80) return null;
  return normalized.slice(0, colon).trim() || null;
}
