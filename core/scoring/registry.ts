import type { ScorerRef } from '../model/eval-case.js';
import type { Scorer, ScorerRefIssue, ScorerRegistry } from './scorer.js';

/** A registry over `scorers` (names must be distinct). Adding a scorer is one file plus one entry in its list. */
export function createScorerRegistry(scorers: readonly Scorer[]): ScorerRegistry {
  const byName = new Map<string, Scorer>();
  for (const scorer of scorers) {
    if (byName.has(scorer.name)) throw new Error(`scorer '${scorer.name}' registered twice`);
    byName.set(scorer.name, scorer);
  }
  return {
    names: () => [...byName.keys()],
    get: (name) => byName.get(name),
    check(refs: readonly ScorerRef[]): ScorerRefIssue[] {
      const issues: ScorerRefIssue[] = [];
      refs.forEach((ref, index) => {
        const scorer = byName.get(ref.name);
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
  };
}
