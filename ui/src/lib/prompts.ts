/** The /prompts page's state in the URL, a version as text, and the line diff between two versions. */
import { diffLines, diffWordsWithSpace } from 'diff';
import type { PromptVersion } from './types.js';

export interface PromptsState {
  /** Case-insensitive substring of the prompt name (the list's filter). */
  q?: string;
  /** The selected prompt, by name (the API takes a name or an id). */
  prompt?: string;
  /** The version shown; the latest when absent. */
  version?: number;
  /** Versions compared: `diff=1..3` (old..new). */
  diff?: { from: number; to: number };
}

const isVersion = (n: number) => Number.isInteger(n) && n >= 1 && n <= 2_147_483_647;

export function parsePromptsState(q: URLSearchParams): PromptsState {
  const s: PromptsState = {};
  const name = q.get('q')?.trim();
  if (name) s.q = name.slice(0, 256);
  const prompt = q.get('prompt');
  if (prompt && prompt.length <= 256) s.prompt = prompt;
  const version = Number(q.get('version'));
  if (q.get('version') && isVersion(version)) s.version = version;
  const m = /^(\d+)\.\.(\d+)$/.exec(q.get('diff') ?? '');
  if (m && isVersion(Number(m[1])) && isVersion(Number(m[2]))) s.diff = { from: Number(m[1]), to: Number(m[2]) };
  return s;
}

export function promptsStateToQuery(s: PromptsState): URLSearchParams {
  const q = new URLSearchParams();
  if (s.q) q.set('q', s.q);
  if (s.prompt) {
    q.set('prompt', s.prompt);
    if (s.version) q.set('version', String(s.version));
    if (s.diff) q.set('diff', `${s.diff.from}..${s.diff.to}`);
  }
  return q;
}

export function promptsHref(s: PromptsState): string {
  const q = promptsStateToQuery(s).toString();
  return q ? `/prompts?${q}` : '/prompts';
}

/** A version's content as one text: the template, or each chat message under a `[role]` line. */
export function versionText(v: Pick<PromptVersion, 'template' | 'messages'>): string {
  if (v.template !== null) return v.template;
  return (v.messages ?? []).map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
}

/** A version's config as stable, pretty JSON (empty when it has none), for the config diff. */
export function configText(v: Pick<PromptVersion, 'config'>): string {
  return v.config ? JSON.stringify(v.config, null, 2) : '';
}

/** A piece of a changed line: `changed` parts differ from the other side's paired line. */
export interface DiffPart {
  text: string;
  changed: boolean;
}

export interface DiffRow {
  kind: 'same' | 'del' | 'add';
  /** Line numbers in the old and new text (null on the side the line is absent from). */
  oldNo: number | null;
  newNo: number | null;
  text: string;
  /** Word-level pieces, when the line was paired with a changed line on the other side. */
  parts: DiffPart[] | null;
}

function splitLines(value: string): string[] {
  const lines = value.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Word differences between a removed and an added line: the pieces of each side. Spaces are
 * tokens of their own (diffWordsWithSpace): plain diffWords gives common runs as the new side
 * spells them, which would put the new line's spacing into the old one.
 */
export function wordParts(oldLine: string, newLine: string): { old: DiffPart[] | null; new: DiffPart[] | null } {
  const old: DiffPart[] = [];
  const neu: DiffPart[] = [];
  for (const c of diffWordsWithSpace(oldLine, newLine)) {
    if (!c.added) old.push({ text: c.value, changed: c.removed });
    if (!c.removed) neu.push({ text: c.value, changed: c.added });
  }
  const same = (parts: DiffPart[], line: string) => parts.map((p) => p.text).join('') === line;
  return { old: same(old, oldLine) ? old : null, new: same(neu, newLine) ? neu : null };
}

/**
 * The line diff of two texts, row by row: unchanged, removed (`-`) and added (`+`) lines with
 * their line numbers. A removed block followed by an added one is paired line by line, and each
 * pair gets word-level pieces so the changed words can be marked.
 */
export function diffRows(oldText: string, newText: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldNo = 1;
  let newNo = 1;
  const changes = diffLines(oldText, newText);
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    const lines = splitLines(c.value);
    if (!c.added && !c.removed) {
      for (const text of lines) rows.push({ kind: 'same', oldNo: oldNo++, newNo: newNo++, text, parts: null });
      continue;
    }
    if (c.removed && changes[i + 1]?.added) {
      const added = splitLines(changes[i + 1].value);
      const pairs = Math.min(lines.length, added.length);
      const dels: DiffRow[] = lines.map((text) => ({ kind: 'del', oldNo: oldNo++, newNo: null, text, parts: null }));
      const adds: DiffRow[] = added.map((text) => ({ kind: 'add', oldNo: null, newNo: newNo++, text, parts: null }));
      for (let k = 0; k < pairs; k++) {
        const w = wordParts(dels[k].text, adds[k].text);
        dels[k].parts = w.old;
        adds[k].parts = w.new;
      }
      rows.push(...dels, ...adds);
      i++;
      continue;
    }
    for (const text of lines)
      rows.push(c.added ? { kind: 'add', oldNo: null, newNo: newNo++, text, parts: null } : { kind: 'del', oldNo: oldNo++, newNo: null, text, parts: null });
  }
  return rows;
}

/** Counts of added and removed lines. */
export function diffStats(rows: readonly DiffRow[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const r of rows) {
    if (r.kind === 'add') added++;
    else if (r.kind === 'del') removed++;
  }
  return { added, removed };
}

/** A run of rows to show, or of unchanged rows folded away (more than `context` lines from any change). */
export type DiffBlock = { kind: 'rows'; rows: DiffRow[] } | { kind: 'fold'; rows: DiffRow[] };

export function foldUnchanged(rows: readonly DiffRow[], context = 3): DiffBlock[] {
  const near = rows.map(() => false);
  rows.forEach((r, i) => {
    if (r.kind === 'same') return;
    for (let k = Math.max(0, i - context); k <= Math.min(rows.length - 1, i + context); k++) near[k] = true;
  });
  const blocks: DiffBlock[] = [];
  let i = 0;
  while (i < rows.length) {
    const keep = rows[i].kind !== 'same' || near[i];
    let j = i;
    while (j < rows.length && (rows[j].kind !== 'same' || near[j]) === keep) j++;
    const run = rows.slice(i, j);
    // Folding fewer than 3 lines saves nothing.
    if (keep || run.length < 3) {
      const last = blocks[blocks.length - 1];
      if (last?.kind === 'rows') last.rows.push(...run);
      else blocks.push({ kind: 'rows', rows: run });
    } else blocks.push({ kind: 'fold', rows: run });
    i = j;
  }
  return blocks;
}

/** JSON with object keys sorted, so two values that are equal compare equal as text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * Whether a new version's content (template or messages, config, description) is the version it
 * starts from unchanged: saving it would make an identical version, so the form says so instead.
 */
export function sameContent(
  from: Pick<PromptVersion, 'type' | 'template' | 'messages' | 'config' | 'description'>,
  body: { template?: string; messages?: unknown; config?: unknown; description?: string },
): boolean {
  const content = from.type === 'text' ? body.template === (from.template ?? '') : canonical(body.messages ?? []) === canonical(from.messages ?? []);
  return content && canonical(body.config ?? null) === canonical(from.config ?? null) && (body.description ?? '') === (from.description ?? '');
}
