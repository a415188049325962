import { askStructured } from '../judges/judge.js';
import type { JudgeRuntime } from '../judges/judge-scorer.js';
import { MAX_LABELED_GROUPS, type FailureGroup } from '../model/failures.js';
import type { FailureLabelStore } from '../store/failure-labels.js';
import { cut } from './normalize.js';

/** Most tokens one label's answer may take (a sentence). */
const LABEL_MAX_TOKENS = 300;
/** Characters of a label kept. */
export const LABEL_MAX = 300;

const LABEL_TOOL = {
  name: 'name_failure_group',
  description: 'Name a group of failures of an AI agent in one sentence.',
  schema: {
    type: 'object',
    properties: { label: { type: 'string', description: 'One sentence (at most 25 words) saying what goes wrong, for an engineer fixing the agent.' } },
    required: ['label'],
  },
};

const SYSTEM =
  'You read groups of failures of an AI agent: failed evaluation cases or production traces with errors. ' +
  'Each group shares a signature. Name what goes wrong in one plain sentence an engineer can act on; ' +
  'do not restate placeholders such as <n> or <id>; do not invent causes the evidence does not show.';

function promptOf(group: FailureGroup): string {
  const { signature: s } = group;
  const lines = [
    `Kind: ${s.kind}`,
    s.error_type ? `Error type: ${s.error_type}` : '',
    s.scorer ? `Failing scorer: ${s.scorer}` : '',
    s.span_path ? `Failing span path: ${s.span_path}` : '',
    `Normalized message: ${s.message}`,
    `Failures in the group: ${group.count}`,
    'Examples:',
    ...group.examples.map((e, i) => `${i + 1}. ${e.case_name ? `case "${e.case_name}": ` : ''}${e.message.slice(0, 400)}`),
  ];
  return lines.filter(Boolean).join('\n');
}

function readLabel(value: unknown): { value: string } | { problem: string } {
  const label = value && typeof value === 'object' ? (value as { label?: unknown }).label : undefined;
  if (typeof label !== 'string' || !label.trim()) return { problem: 'the answer has no label text' };
  return {
    value: cut(
      label
        .toWellFormed()
        .replace(/\u0000/g, '')
        .trim()
        .replace(/\s+/g, ' '),
      LABEL_MAX,
    ),
  };
}

export interface LabelDeps {
  judges: JudgeRuntime | undefined;
  store: FailureLabelStore;
}

/**
 * Labels the largest groups (at most MAX_LABELED_GROUPS) with a sentence from the default judge
 * provider: each signature is asked about once per project (the label is kept by its key and read
 * back after), so asking again costs nothing. Groups keep `label: null` where no provider is
 * configured or a call failed; the note says why. Mutates the groups given.
 */
export async function labelGroups(deps: LabelDeps, projectId: string, groups: FailureGroup[]): Promise<string | null> {
  const wanted = groups.slice(0, MAX_LABELED_GROUPS);
  if (wanted.length === 0) return null;
  const known = await deps.store.get(
    projectId,
    wanted.map((g) => g.key),
  );
  for (const g of wanted) g.label = known.get(g.key) ?? null;
  const missing = wanted.filter((g) => g.label === null);
  if (missing.length === 0) return null;
  const name = deps.judges?.providers.defaultProvider;
  const provider = name ? deps.judges?.providers.get(name) : undefined;
  if (!deps.judges || !provider) return 'no judge provider is configured (docs/judges.md): groups are not labelled';
  let failed = 0;
  for (const group of missing) {
    try {
      const outcome = await askStructured<string>(
        provider,
        {
          scorer: 'failureLabel',
          system: SYSTEM,
          prompt: promptOf(group),
          tool: LABEL_TOOL,
          temperature: 0,
          read: (a) => readLabel(a.value),
          retryNote: (p) => `\n\nYour last answer could not be used: ${p}. Call the tool with a label.`,
        },
        { maxAnswerAttempts: Math.min(2, deps.judges.maxAnswerAttempts), maxTokens: LABEL_MAX_TOKENS },
      );
      if (outcome.tag !== 'answer') {
        failed++;
        continue;
      }
      group.label = outcome.value;
      await deps.store.put(projectId, group.key, { label: outcome.value, provider: provider.name });
    } catch {
      failed++;
    }
  }
  return failed ? `${failed} group${failed === 1 ? '' : 's'} could not be labelled (the judge provider failed); asking again retries them` : null;
}
