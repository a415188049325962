/**
 * How a model name as a span reports it finds its row in the price table (docs/costs.md
 * "Model names"). The table is asked for each candidate in turn, and the first one it knows wins:
 *
 * 1. the name exactly as reported;
 * 2. trimmed and lower-cased;
 * 3. without a provider or path prefix: everything up to the last `/` (`openai/gpt-4o`,
 *    `models/gemini-2.5-pro`, `projects/p/locations/l/publishers/google/models/gemini-2.5-pro`);
 * 4. for `claude-*`, a dot between digits written as a dash (`claude-sonnet-4.6`, the gateways'
 *    spelling of `claude-sonnet-4-6`);
 * 5. without one version suffix at the end: `@...` (Vertex: `claude-sonnet-4@20250514`), a date
 *    (`-2024-08-06`, `-20250514`), `-latest`, or a three-digit revision (`-001`).
 *
 * Nothing else: no substring or prefix matching, so `gpt-4o-mini-audio` is never priced as
 * `gpt-4o-mini`, nor a fine-tuned `ft:gpt-4o-mini:org::id` as its base model.
 */

const PATH_PREFIX = /^.*\//;
const CLAUDE_DOT = /(?<=\d)\.(?=\d)/g;
/** Each alone, at the end of the name. */
const VERSION_SUFFIXES = [/@[^@]*$/, /-20\d{2}-\d{2}-\d{2}$/, /-20\d{6}$/, /-latest$/, /-0\d{2}$/];

/** The names to look up for `raw`, in order, without repeats. */
export function modelNameCandidates(raw: string): string[] {
  const out: string[] = [raw];
  const add = (name: string) => {
    if (name !== '' && !out.includes(name)) out.push(name);
  };
  let name = raw.trim().toLowerCase();
  add(name);
  name = name.replace(PATH_PREFIX, '');
  add(name);
  if (name.startsWith('claude-')) {
    name = name.replace(CLAUDE_DOT, '-');
    add(name);
  }
  for (const suffix of VERSION_SUFFIXES) {
    if (suffix.test(name)) {
      add(name.replace(suffix, ''));
      break;
    }
  }
  return out;
}
