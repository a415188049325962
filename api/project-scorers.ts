import { BadRequestError, ValidationError } from '../core/errors.js';
import { conversationScorerProblem, turnScorerLists, type PlacedCase } from '../core/model/case-schema.js';
import type { ScorerRef } from '../core/model/eval-case.js';
import { projectRegistry } from '../core/scoring/http-scorer.js';
import type { ScorerRegistry } from '../core/scoring/scorer.js';
import type { ApiDeps } from './deps.js';

/**
 * The scorers a project's suites and runs may name: the process's (rules, judges) plus the
 * project's HTTP custom scorers. Only names and configs are checked with it here; the worker
 * builds its own to call them.
 */
export function scorersFor(deps: Pick<ApiDeps, 'scorers' | 'metadata' | 'egress'>, projectId: string): Promise<ScorerRegistry> {
  return projectRegistry(deps.scorers, deps.metadata.scorers, projectId, { timeoutMs: 30_000, fetch: deps.egress.fetch });
}

/**
 * A suite or run that names a scorer which cannot run here (an LLM judge with no provider
 * configured) is refused at creation with a 400, not failed case by case later.
 */
export function assertScorersRunnable(registry: ScorerRegistry, lists: Array<{ field: string; refs: readonly ScorerRef[] | undefined }>): void {
  for (const { field, refs } of lists) {
    const [issue] = registry.unavailable(refs ?? []);
    if (issue) throw new BadRequestError(`${field}[${issue.index}]: ${issue.message}`, 'SCORER_UNAVAILABLE');
  }
}

/**
 * Scorers the project's registry refuses (422), each named by where the request put it; then
 * scorers that cannot run here, such as a judge without a provider (400).
 */
export async function checkRunScorers(
  deps: Pick<ApiDeps, 'scorers' | 'metadata' | 'egress'>,
  projectId: string,
  lists: Array<{ field: string; refs: ScorerRef[] | undefined }>,
): Promise<ScorerRegistry> {
  const registry = await scorersFor(deps, projectId);
  const issues = lists.flatMap(({ field, refs }) => registry.check(refs ?? []).map((issue) => ({ field: `${field}[${issue.index}]`, message: issue.message })));
  if (issues.length) throw new ValidationError(issues.slice(0, 100));
  assertScorersRunnable(registry, lists);
  return registry;
}

/**
 * A run's scorers as checkRunScorers checks them, the scripted turns' included, and then where
 * conversation-level scorers stand (400 on a single-turn case or a turn: docs/evals.md, "Conversations").
 */
export async function checkCaseScorers(
  deps: Pick<ApiDeps, 'scorers' | 'metadata' | 'egress'>,
  projectId: string,
  defaults: { field: string; refs: ScorerRef[] },
  cases: PlacedCase[],
): Promise<void> {
  const registry = await checkRunScorers(deps, projectId, [
    defaults,
    ...cases.flatMap((c) => [{ field: `${c.field}.scorers`, refs: c.scorers ? [...c.scorers] : undefined }, ...turnScorerLists(c)]),
  ]);
  const problem = conversationScorerProblem(cases, defaults, (name) => registry.get(name)?.readsConversation === true);
  if (problem) throw new BadRequestError(problem, 'CONVERSATION_SCORER');
}
