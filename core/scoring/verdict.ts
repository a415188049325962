import { z } from 'zod';
import type { ScoreDetail } from '../model/eval-case.js';

/**
 * The one reading of a custom scorer's answer, `{value | score, reason?, evidence?}` (or a bare
 * number or boolean): the SDK's `defineScorer` and HTTP custom scorers (docs/scorers.md) both
 * turn what they get into a score through it, so the same answer scores the same everywhere.
 */

/** How `value` reads: a number in 0..1, true/false (or 1/0), or a label scored by `categories`. */
export type VerdictDataType = 'numeric' | 'boolean' | 'categorical';

const VerdictObject = z.object({
  value: z.union([z.number(), z.boolean(), z.string()]).optional(),
  score: z.union([z.number(), z.boolean()]).optional(),
  reason: z.string().optional(),
  evidence: z.array(z.string()).optional(),
});

export interface VerdictOptions {
  /** Names the scorer in errors, e.g. `custom scorer 'tone'`. */
  who: string;
  dataType: VerdictDataType;
  /** Scores of a categorical scorer's labels. */
  categories?: Record<string, number>;
}

function scoreOf(raw: number | boolean | string, opts: VerdictOptions): number {
  const { who, dataType } = opts;
  if (dataType === 'categorical') {
    if (typeof raw !== 'string') throw new Error(`${who} is categorical and answered ${JSON.stringify(raw)} (expected one of its labels)`);
    const score = opts.categories?.[raw];
    if (score === undefined)
      throw new Error(`${who} answered the category '${raw}', which has no score (categories: ${Object.keys(opts.categories ?? {}).join(', ')})`);
    return score;
  }
  if (typeof raw === 'string') throw new Error(`${who} answered an invalid body: value must be a number or a boolean, not a string`);
  if (dataType === 'boolean') {
    if (typeof raw === 'boolean') return raw ? 1 : 0;
    if (raw === 0 || raw === 1) return raw;
    throw new Error(`${who} is boolean and answered ${raw} (expected true, false, 1 or 0)`);
  }
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  if (!Number.isFinite(raw) || raw < 0 || raw > 1) throw new Error(`${who} is numeric and answered ${raw} (expected a number from 0 to 1)`);
  return raw;
}

/** The score detail of an answer, or an Error saying in words what is wrong with it. */
export function verdictToDetail(answer: unknown, opts: VerdictOptions): ScoreDetail {
  if (typeof answer === 'boolean' || (typeof answer === 'number' && !Number.isNaN(answer))) return { score: scoreOf(answer, opts), reason: '', evidence: [] };
  const parsed = VerdictObject.safeParse(answer);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const what = issue.path.length ? `${issue.path.join('.')} ${issue.message}` : 'expected a number, a boolean or an object with value or score';
    throw new Error(`${opts.who} answered an invalid body: ${what}`);
  }
  const v = parsed.data;
  const raw = v.score ?? v.value;
  if (raw === undefined) throw new Error(`${opts.who} answered neither value nor score`);
  const label = typeof v.value === 'string' ? v.value : undefined;
  return { score: scoreOf(raw, opts), reason: v.reason ?? (label ? `category ${label}` : ''), evidence: v.evidence ?? [] };
}
