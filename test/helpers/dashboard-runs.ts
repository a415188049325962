import type { AgentRequest } from './test-agent.js';

/**
 * The eval run pages' elements (ui/src/routes/runs, ui/src/routes/compare/runs and their
 * components), by data-testid, for test/browser/runs.test.ts.
 */
export const RUNS_SEL = {
  runRow: '[data-testid="run-row"]',
  runRowOf: (runId: string) => `[data-testid="run-row"][data-run-id="${runId}"]`,
  status: '[data-testid="run-status"]',
  passRate: '[data-testid="run-pass-rate"]',
  avgScore: '[data-testid="run-avg-score"]',
  progress: '[data-testid="run-progress"]',
  progressText: '[data-testid="run-progress-text"]',
  pause: '[data-testid="run-pause"]',
  resume: '[data-testid="run-resume"]',
  cancel: '[data-testid="run-cancel"]',
  controlMessage: '[data-testid="run-control-message"]',
  controlError: '[data-testid="run-control-error"]',
  compareLink: '[data-testid="runs-compare-link"]',
  filterStatus: '[data-testid="runs-filter-status"]',
  filterSuite: '[data-testid="runs-filter-suite"]',
  summary: '[data-testid="run-summary"]',
  scorer: '[data-testid="run-scorer"]',
  failedOnly: '[data-testid="run-failed-only"]',
  caseRow: '[data-testid="case-row"]',
  caseRowNamed: (name: string) => `[data-testid="case-row"][data-case-name="${name}"]`,
  caseScore: (scorer: string) => `[data-testid="case-score"][data-scorer="${scorer}"]`,
  caseStatus: '[data-testid="case-status"]',
  caseToggle: '[data-testid="case-toggle"]',
  caseDetail: '[data-testid="case-detail"]',
  caseTraceLink: '[data-testid="case-trace-link"]',
  caseAwaitingApproval: '[data-testid="case-awaiting-approval"]',
  approvals: '[data-testid="run-approvals"]',
  approval: '[data-testid="run-approval"]',
  approve: '[data-testid="run-approve"]',
  reject: '[data-testid="run-reject"]',
  approvalComment: '[data-testid="run-approval-comment"]',
  approvalDone: '[data-testid="run-approval-done"]',
  compareBaseline: '[data-testid="compare-baseline"]',
  compareCandidate: '[data-testid="compare-candidate"]',
  compareDelta: '[data-testid="compare-delta"]',
  compareSentence: '[data-testid="compare-sentence"]',
  compareVerdict: '[data-testid="compare-verdict"]',
  compareRegression: '[data-testid="compare-regression"]',
  compareImprovement: '[data-testid="compare-improvement"]',
  compareScorer: '[data-testid="compare-scorer"]',
  compareWarning: '[data-testid="compare-warning"]',
  compareError: '[data-testid="compare-error"]',
};

/** Input of a case for the test agent below. */
export interface RunsAgentInput {
  /** What the agent answers. */
  answer?: string;
  /** Tools the agent says it called. */
  tools?: string[];
  /** Agent versions that forget the tools (a planted regression). */
  forget_tools_in?: string[];
  /** Agent versions that answer `better_answer` instead (a planted improvement). */
  better_in?: string[];
  better_answer?: string;
  /** Milliseconds to wait before answering. */
  delay_ms?: number;
  /** A tool to ask a person's approval for (with `reason`) before answering. */
  approval?: string;
  reason?: string;
}

/**
 * The agent of the run pages' tests: answers `input.answer` with `input.tools`, behaving
 * differently for the agent versions named in the input, after `input.delay_ms`; first asks
 * approval for `input.approval` when set.
 */
export function runsAgentBehaviour(req: AgentRequest) {
  const input = (req.body.input ?? {}) as RunsAgentInput;
  if (input.approval && !req.body.approval) return { json: { output: 'waiting', approval: { tool: input.approval, reason: input.reason } } };
  const version = req.body.agent_version;
  const tools = input.forget_tools_in?.includes(version) ? [] : (input.tools ?? []);
  const output = input.better_in?.includes(version) ? (input.better_answer ?? input.answer ?? '') : (input.answer ?? '');
  const answer = { json: { output, tool_calls: tools, usage: { input_tokens: 12, output_tokens: 6 } } };
  if (input.delay_ms) return new Promise<typeof answer>((r) => setTimeout(() => r(answer), input.delay_ms));
  return answer;
}
