import type { ScorerRef } from '../model/eval-case.js';
import type { Scorer, ScorerRefIssue, ScorerRegistry } from './scorer.js';

/** A registry over `scorers` (names must be distinct). Adding a scorer is one file plus one entry in its list. */
export function createScorerRegistry(scorers: readonly Scorer[]): ScorerRegistry {
  const byName = new Map<string, Scorer>();
  for (const scorer of scorers) {
    if (byName.has(scorer.name)) throw new Error(`scorer '${scorer.name}' registered twice`);
    byName.set(scorer.name, scorer);
  }
  /**
   * By name; `{judge}:{label}` names another instance of a judge (`llmJudge:politeness`), since a
   * case's scorers are keyed by name and a case may want several judges of one kind.
   */
  const lookup = (name: string): Scorer | undefined => {
    const own = byName.get(name);
    if (own) return own;
    const colon = name.indexOf(':');
    const base = colon > 0 ? byName.get(name.slice(0, colon)) : undefined;
    return base?.kind === 'judge' && colon < name.length - 1 ? base : undefined;
  };
  return {
    names: () => [...byName.keys()],
    get: lookup,
    check(refs: readonly ScorerRef[]): ScorerRefIssue[] {
      const issues: ScorerRefIssue[] = [];
      refs.forEach((ref, index) => {
        const scorer = lookup(ref.name);
        if (!scorer) {
          issues.push({ index, message: `unknown scorer '${ref.name}' (known: ${[...byName.keys()].join(', ')})` });
          return;
        }
        const parsed = scorer.configSchema.safeParse(ref.config);
        if (!parsed.success) {
          for (const issue of parsed.error.issues) {
            const where = issue.path.length ? `config.${issue.path.map(String).join('.')}` : 'config';
            issues.push({ index, message: `scorer '${ref.name}': ${where} ${issue.message}` });
          }
        }
      });
      return issues;
    },
    unavailable(refs: readonly ScorerRef[]): ScorerRefIssue[] {
      const issues: ScorerRefIssue[] = [];
      refs.forEach((ref, index) => {
        const scorer = lookup(ref.name);
        const config = scorer?.unavailable ? scorer.configSchema.safeParse(ref.config ?? {}) : undefined;
        const why = config?.success ? scorer?.unavailable?.(config.data) : undefined;
        if (why) issues.push({ index, message: why });
      });
      return issues;
    },
  };
}

/** `base` plus `extra` scorers (a project's HTTP custom scorers); a name `base` knows keeps its scorer. */
export function extendRegistry(base: ScorerRegistry, extra: readonly Scorer[]): ScorerRegistry {
  if (extra.length === 0) return base;
  const own = base.names().flatMap((name) => base.get(name) ?? []);
  return createScorerRegistry([...own, ...extra.filter((scorer) => !own.some((known) => known.name === scorer.name))]);
}
