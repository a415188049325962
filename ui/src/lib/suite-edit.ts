import type { EvalCase, ScorerRef, SuiteDefinition } from './types.js';

/**
 * The suite page's case editor (docs/dashboard.md "Suites"): a case as the form shows it and the
 * definition a save writes (a PUT of the whole definition: a new version).
 */

export interface CaseForm {
  name: string;
  /** Text as typed; JSON text of an object or list is sent as that value. */
  input: string;
  /** Empty: the case expects no output. */
  expectedOutput: string;
  /** Scorer names, comma-separated; empty: the suite's defaults. */
  scorers: string;
}

export const emptyCaseForm = (): CaseForm => ({ name: '', input: '', expectedOutput: '', scorers: '' });

const asText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** A text the way a case holds it: the value of JSON holding an object or a list, else the text itself (byte for byte). */
export function caseValue(text: string): unknown {
  const t = text.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export function caseForm(c: EvalCase): CaseForm {
  return {
    name: c.name,
    input: asText(c.input),
    expectedOutput: asText(c.expected.output),
    scorers: (c.scorers ?? []).map((s) => s.name).join(', '),
  };
}

/** The case a form makes; what the form does not show (other expectations, source, metadata) is kept from `base`. */
export function formCase(form: CaseForm, base?: EvalCase): EvalCase {
  const expected: EvalCase['expected'] = { ...(base?.expected ?? {}) };
  delete expected.output;
  if (form.expectedOutput !== '') expected.output = caseValue(form.expectedOutput);
  const names = form.scorers
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const kept = new Map((base?.scorers ?? []).map((s) => [s.name, s]));
  const scorers: ScorerRef[] | undefined = names.length ? names.map((n) => kept.get(n) ?? { name: n, config: {} }) : undefined;
  const c: EvalCase = { ...(base ?? { weight: 1 }), name: form.name.trim(), input: caseValue(form.input), expected };
  if (scorers) c.scorers = scorers;
  else delete c.scorers;
  return c;
}

/** The definition with case `replacing` (a name; null: a new case) set to `c`, or removed when `c` is null. */
export function withCase(def: SuiteDefinition, replacing: string | null, c: EvalCase | null): SuiteDefinition {
  const cases = def.cases.filter((k) => k.name !== replacing);
  if (c) {
    const at = replacing === null ? cases.length : def.cases.findIndex((k) => k.name === replacing);
    cases.splice(at < 0 ? cases.length : at, 0, c);
  }
  return { ...def, cases };
}
