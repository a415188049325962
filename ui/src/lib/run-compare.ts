/** A changed case of a run comparison, explained: both outputs diffed word by word, both runs' scorer verdicts side by side. */
import { diffWordsWithSpace } from 'diff';
import { formatDuration } from './format.js';
import { formatUsd } from './cost.js';
import type { CaseComparison } from './types.js';

export interface DiffPart {
  text: string;
  changed: boolean;
}

/** A stored value as text: a string as it is, anything else as indented JSON ('' for null or absent). */
export function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value !== 'object') return JSON.stringify(value) ?? '';
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return '(a value that cannot be shown as JSON)';
  }
}

/** Texts longer than this are shown whole but not diffed (the word diff is quadratic at worst). */
export const DIFF_MAX_CHARS = 40_000;

/**
 * The word-level pieces of two texts, each side its own: spaces and newlines are tokens of their
 * own (diffWordsWithSpace), so blank lines and indentation survive as they were. Null when the
 * texts are too long to diff.
 */
export function wordDiff(oldText: string, newText: string): { old: DiffPart[]; new: DiffPart[] } | null {
  if (oldText.length + newText.length > DIFF_MAX_CHARS) return null;
  const old: DiffPart[] = [];
  const neu: DiffPart[] = [];
  for (const c of diffWordsWithSpace(oldText, newText)) {
    if (!c.added) push(old, { text: c.value, changed: Boolean(c.removed) });
    if (!c.removed) push(neu, { text: c.value, changed: Boolean(c.added) });
  }
  return { old, new: neu };
}

/** Adjacent pieces of the same kind merged (fewer elements to render). */
function push(parts: DiffPart[], p: DiffPart): void {
  const last = parts.at(-1);
  if (last && last.changed === p.changed) last.text += p.text;
  else parts.push(p);
}

/** One scorer's verdict as a run's results give it. */
export interface Verdict {
  score: number | null;
  passed: boolean | null;
  reason: string | null;
  evidence: string[];
}

export interface ScorerPair {
  scorer: string;
  baseline: Verdict | null;
  candidate: Verdict | null;
  delta: number | null;
  /** Dropped (regressed) or rose beyond the threshold. */
  moved: 'down' | 'up' | null;
}

function verdict(raw: unknown): Verdict | null {
  if (!raw || typeof raw !== 'object') return null;
  const d = raw as Record<string, unknown>;
  const evidence = Array.isArray(d.evidence)
    ? d.evidence.map((e) => (typeof e === 'string' ? e : asText(e)))
    : typeof d.evidence === 'string'
      ? [d.evidence]
      : [];
  return {
    score: typeof d.score === 'number' ? d.score : null,
    passed: typeof d.passed === 'boolean' ? d.passed : null,
    reason: typeof d.reason === 'string' && d.reason ? d.reason : null,
    evidence,
  };
}

/**
 * Both runs' scorers of a case, the moved ones first (the biggest drop first), then by name.
 */
export function scorerPairs(c: Pick<CaseComparison, 'baseline_detail' | 'candidate_detail'>, threshold: number): ScorerPair[] {
  const b = c.baseline_detail?.details ?? {};
  const n = c.candidate_detail?.details ?? {};
  const names = [...new Set([...Object.keys(b), ...Object.keys(n)])];
  const pairs = names.map((scorer): ScorerPair => {
    const baseline = verdict(b[scorer]);
    const candidate = verdict(n[scorer]);
    const delta = baseline?.score != null && candidate?.score != null ? candidate.score - baseline.score : null;
    const moved = delta === null || Math.abs(delta) <= threshold + 1e-9 ? null : delta < 0 ? 'down' : 'up';
    return { scorer, baseline, candidate, delta, moved };
  });
  const rank = (p: ScorerPair) => (p.moved === 'down' ? 0 : p.moved === 'up' ? 1 : 2);
  return pairs.sort((x, y) => rank(x) - rank(y) || (x.delta ?? 0) - (y.delta ?? 0) || x.scorer.localeCompare(y.scorer));
}

/** A signed duration: "+1.2 s", "-350 ms", "0 ms"; "-" when unknown. */
export function formatMsDelta(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  if (Math.round(ms) === 0) return '0 ms';
  return `${ms > 0 ? '+' : '-'}${formatDuration(Math.abs(ms))}`;
}

/** A signed amount of USD: "+$0.0042", "-$1.20", "$0"; "-" when unknown. */
export function formatUsdDelta(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '-';
  if (usd === 0) return '$0';
  return `${usd > 0 ? '+' : '-'}${formatUsd(Math.abs(usd))}`;
}

/** A relative change in words: "+35 %", "-12 %"; '' when the base is zero or unknown. */
export function percentChange(base: number | null | undefined, next: number | null | undefined): string {
  if (base == null || next == null || !Number.isFinite(base) || !Number.isFinite(next) || base === 0) return '';
  const p = Math.round(((next - base) / base) * 100);
  return `${p > 0 ? '+' : ''}${p} %`;
}

export const CHANGE_LABEL: Record<CaseComparison['change'], string> = {
  regressed: 'regressed',
  improved: 'improved',
  mixed: 'mixed',
  unchanged: 'unchanged',
};
