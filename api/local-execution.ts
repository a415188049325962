import { BadRequestError, NotFoundError, RunStateConflictError, ValidationError, writeFailure, type FieldIssue } from '../core/errors.js';
import { conversationRecordOf, conversationVerdict, type ConversationScoring } from '../core/conversations/conversation-loop.js';
import { isConversation } from '../core/model/case-schema.js';
import type { ConversationEnd } from '../core/model/conversation.js';
import type { ScoreDetail, ScorerRef } from '../core/model/eval-case.js';
import { FINAL_RUN_STATUSES, type LocalResult, type RunCase, type RunView, type TrialRecord, type TurnResult } from '../core/model/eval-run.js';
import type { LocalTurn } from '../core/model/local-results.js';
import { derivedUuid } from '../core/ids/derived-ids.js';
import type { Score } from '../core/model/score.js';
import { aggregateScores, casePasses } from '../core/scoring/run-scorers.js';
import type { ApiDeps } from './deps.js';
import type { RunExecutionStrategy } from './run-execution.js';

/**
 * Local execution (docs/evals.md, "Runs executed outside the service"): a client (the SDK's
 * `evaluate()`, the CLI's `--local`) runs the agent and the scorers, uploads each case trial's
 * result, and completes the run. Its runs are stored in the same tables as managed runs, so every
 * read, list and comparison treats them alike; the service judges pass or fail from the uploaded
 * scores with the same rules (core/scoring) as for its own runs. No workflow drives them.
 */

/** The id of a score a local run's result writes: the same upload writes the same rows. */
const scoreId = (runId: string, caseIndex: number, trial: number, name: string) => derivedUuid(`local-run-score:${runId}:${caseIndex}:${trial}:${name}`);

const refuse = (message: string) => Promise.reject(new RunStateConflictError(message));

/** Scores that name only these scorers: a problem per other name. */
function unknownScorers(details: Record<string, unknown>, refs: readonly ScorerRef[], field: string, whose: string): FieldIssue[] {
  const names = new Set(refs.map((s) => s.name));
  return Object.keys(details)
    .filter((name) => !names.has(name))
    .map((name) => ({ field: `${field}.details.${name}`, message: `is not a scorer of ${whose} (its scorers: ${[...names].join(', ')})` }));
}

/** The ends a conversation of this shape can have. */
const endsOf = (runCase: RunCase): readonly ConversationEnd[] => (runCase.turns ? ['script_done'] : ['goal_met', 'gave_up', 'stop_condition', 'max_turns']);

/** Problems of a conversation trial's turns and end against its case (docs/evals.md, "Runs executed outside the service"). */
function conversationIssues(runCase: RunCase, r: LocalResult, at: string): FieldIssue[] {
  const conversation = isConversation(runCase);
  if (!conversation)
    return r.turns || r.conversation
      ? [{ field: `${at}.${r.turns ? 'turns' : 'conversation'}`, message: `case ${r.case_index} is a single-turn case: upload its answer, not turns` }]
      : [];
  if (!r.turns || !r.conversation)
    return [
      {
        field: `${at}.${r.turns ? 'conversation' : 'turns'}`,
        message: `case ${r.case_index} is a conversation: upload its turns and conversation.ended (null when it did not end)`,
      },
    ];
  const issues: FieldIssue[] = [];
  const most = runCase.turns ? runCase.turns.length : runCase.simulation!.max_turns;
  if (r.turns.length > most)
    issues.push({ field: `${at}.turns`, message: `case ${r.case_index} has at most ${most} turn${most === 1 ? '' : 's'}; ${r.turns.length} were uploaded` });
  r.turns.forEach((t, j) => {
    if (t.turn !== j + 1) issues.push({ field: `${at}.turns[${j}].turn`, message: `must be ${j + 1}: turns are numbered from 1, in order` });
    if (t.error && j < r.turns!.length - 1)
      issues.push({ field: `${at}.turns[${j}].error`, message: 'only the last turn can have failed: a failed turn ends the conversation' });
    issues.push(...unknownScorers(t.details, turnPool(runCase, t.turn), `${at}.turns[${j}]`, `turn ${t.turn} of case ${r.case_index}`));
  });
  const ended = r.conversation.ended;
  if (ended !== null && !endsOf(runCase).includes(ended))
    issues.push({
      field: `${at}.conversation.ended`,
      message: `a ${runCase.turns ? 'scripted' : 'simulated'} conversation ends with ${endsOf(runCase).join(', ')} (or null when it did not end)`,
    });
  // Ends that say how many turns there were: every turn of the script, max_turns answered.
  else if ((ended === 'script_done' || ended === 'max_turns') && r.turns.length !== most)
    issues.push({ field: `${at}.conversation.ended`, message: `${ended} needs all ${most} turns of case ${r.case_index}; ${r.turns.length} were uploaded` });
  return issues;
}

/** Problems of one uploaded result against its run and case. */
function resultIssues(run: RunView, r: LocalResult, runCase: RunCase | undefined, i: number): FieldIssue[] {
  if (!runCase) return [{ field: `results[${i}].case_index`, message: `the run has ${run.summary.total_cases} cases (0-${run.summary.total_cases - 1})` }];
  if (r.trial >= run.config.repetitions)
    return [{ field: `results[${i}].trial`, message: `the run repeats each case ${run.config.repetitions} times (0-${run.config.repetitions - 1})` }];
  return [...unknownScorers(r.details, runCase.scorers, `results[${i}]`, `case ${r.case_index}`), ...conversationIssues(runCase, r, `results[${i}]`)];
}

const detailsOf = (uploaded: LocalResult['details']): Record<string, ScoreDetail> =>
  Object.fromEntries(Object.entries(uploaded).map(([name, d]) => [name, { score: d.score, reason: d.reason, evidence: d.evidence }]));

/** The scorers a turn's scores may name: a scripted turn's own, else the case's. */
const turnPool = (runCase: RunCase, turn: number): ScorerRef[] => runCase.turns?.[turn - 1]?.scorers ?? runCase.scorers;

/**
 * The scorers a turn is judged by: a scripted turn's own scorers, every one of them (the script
 * names them); else those of the case's scorers the client scored the turn with (which answer
 * scorers apply depends on the client's conversation-level scorers, unknown here).
 */
function turnRefs(runCase: RunCase, t: LocalTurn, details: Record<string, ScoreDetail>): ScorerRef[] {
  const own = runCase.turns?.[t.turn - 1]?.scorers;
  return own ?? runCase.scorers.filter((ref) => Object.hasOwn(details, ref.name));
}

/** An uploaded turn as stored: passed judged here, from its scores. */
function turnRecord(t: LocalTurn, runCase: RunCase, scoring: ConversationScoring, traceId: string | null): TurnResult {
  const details = detailsOf(t.details);
  const refs = turnRefs(runCase, t, details);
  const error = t.error ?? null;
  return {
    turn: t.turn,
    user: t.user,
    output: t.output ?? null,
    tool_calls: t.tool_calls ?? null,
    usage: t.usage ?? null,
    latency_ms: t.latency_ms ?? null,
    details,
    avg_score: refs.length ? aggregateScores(details, refs, scoring.aggregation) : null,
    passed: error === null && casePasses(details, refs, scoring.minScore),
    approval: null,
    error,
    trace_id: traceId,
  };
}

/** The stored trial: pass or fail judged here, from the scores, by the rules of every run. */
function trialRecord(run: RunView, runCase: RunCase, r: LocalResult): { record: TrialRecord; turns: TurnResult[] } {
  const details = detailsOf(r.details);
  const scoring = { minScore: runCase.min_score ?? run.min_score, aggregation: run.aggregation };
  if (isConversation(runCase)) {
    const turns = (r.turns ?? []).map((t) => turnRecord(t, runCase, scoring, r.trace_id ?? null));
    const ended = r.conversation?.ended ?? null;
    const error = r.error ?? turns.find((t) => t.error !== null)?.error ?? null;
    // The end's scores are judged as uploaded: which of the case's scorers read the conversation is the client's to know.
    const endRefs = runCase.scorers.filter((ref) => Object.hasOwn(details, ref.name));
    const verdict = conversationVerdict({ runCase, turns, ended, details, endRefs, error }, scoring);
    const answered = turns.filter((t) => t.error === null);
    return {
      record: {
        ...trialBase(r, details, error, verdict.passed, verdict.avgScore),
        output: r.output ?? answered.at(-1)?.output ?? null,
        conversation: conversationRecordOf(ended, turns),
      },
      turns,
    };
  }
  const error = r.error ?? null;
  const passed = error === null && casePasses(details, runCase.scorers, scoring.minScore);
  return { record: trialBase(r, details, error, passed, aggregateScores(details, runCase.scorers, run.aggregation)), turns: [] };
}

function trialBase(r: LocalResult, details: Record<string, ScoreDetail>, error: string | null, passed: boolean, avgScore: number): TrialRecord {
  return {
    status: passed ? 'passed' : 'failed',
    details,
    avg_score: avgScore,
    passed,
    duration_ms: r.duration_ms,
    latency_ms: r.latency_ms ?? null,
    output: r.output ?? null,
    tool_calls: r.tool_calls ?? null,
    usage: r.usage ?? null,
    approval: null,
    error,
    trace_id: r.trace_id ?? null,
  };
}

/** Scores of the uploaded trials, in the trace store beside their traces (source `eval`, and `sdk` for the case's own). */
function scoresOf(runId: string, r: LocalResult, record: TrialRecord): Score[] {
  if (!r.trace_id) return [];
  const created_at = new Date().toISOString();
  const base = { trace_id: r.trace_id, span_id: r.span_id ?? null, score_type: 'numeric' as const, created_at };
  return [
    ...Object.entries(record.details).map(([name, d]) => ({
      ...base,
      id: scoreId(runId, r.case_index, r.trial, name),
      name,
      value: d.score,
      source: 'eval' as const,
      scorer_name: name,
      reason: d.reason,
      evidence: d.evidence,
    })),
    {
      ...base,
      id: scoreId(runId, r.case_index, r.trial, 'avg_score'),
      name: 'avg_score',
      value: record.avg_score,
      source: 'sdk' as const,
      scorer_name: null,
      reason: record.status === 'passed' ? 'case passed' : 'case failed',
      evidence: [],
    },
  ];
}

export function localExecution(deps: ApiDeps): RunExecutionStrategy {
  const { metadata } = deps;
  const runs = metadata.runs;

  return {
    execution: 'local',

    /**
     * Every case needs a scorer (the client's: the registry's or its own custom ones, so only
     * names are checked, on upload). A registered agent's id or name links the run to it; any
     * other label is the local agent's name. A suite's `id` and `version` must name a stored one.
     * Conversation cases (scripted, simulated) run in the client too, which plays simulated users
     * with its own LLM provider: `replay_from` (the service's record of a simulated user) is a 400.
     */
    async admit(projectId, body) {
      if (body.config.replay_from !== undefined)
        throw new BadRequestError(
          'config.replay_from: replaying a recorded conversation is for runs the service executes; start the run without execution "local"',
          'REPLAY_LOCAL',
        );
      const issues = body.dataset.items.flatMap((item, i) =>
        (item.scorers ?? body.scorers).length
          ? []
          : [{ field: `dataset.items[${i}].scorers`, message: 'a case needs at least one scorer: list scorers here or in scorers' }],
      );
      if (issues.length) throw new ValidationError(issues.slice(0, 100));
      const agent = await metadata.agents.resolve(projectId, body.agentId);
      const suiteRef = 'suite' in body ? body.suite : undefined;
      let suite: { id: string | null; version: number | null; name: string } | undefined;
      if (suiteRef?.id !== undefined && suiteRef.version !== undefined) {
        const stored = await metadata.suites.get(projectId, suiteRef.id, suiteRef.version);
        if (!stored) throw new ValidationError([{ field: 'suite.id', message: `the project has no suite ${suiteRef.id} version ${suiteRef.version}` }]);
        suite = { id: stored.id, version: stored.version, name: stored.name };
      } else if (suiteRef) {
        suite = { id: null, version: null, name: suiteRef.name };
      }
      return { agent: agent ? { id: agent.id, name: agent.name } : { id: null, name: body.agentId }, suite };
    },

    /** The run and its cases, `running` at once, no workflow. */
    start(run) {
      return runs.create({ ...run, execution: 'local' });
    },

    progress(run) {
      return Promise.resolve(run.progress);
    },

    /** No workflow drives the run: a cancel ends it here, and its client stops at its next upload. */
    async control(run, action) {
      if (action !== 'cancel')
        throw new RunStateConflictError(`Run ${run.id} is executed by its client and cannot be ${action === 'pause' ? 'paused' : 'resumed'}`);
      await runs.cancelPending(run.id);
      await runs.finish(run.id, 'cancelled');
      return { run_id: run.id, action, status: 'cancelled', accepted: true };
    },

    approvals() {
      return Promise.resolve([]);
    },

    cancelCase(run) {
      return refuse(`Run ${run.id} is executed by its client; cancel the whole run`);
    },

    approve(run) {
      return refuse(`Run ${run.id} is executed by its client; there is nothing to approve`);
    },

    /** Records each trial once by (case_index, trial); sending the same upload again changes nothing (the first record of a trial wins, as in every run). */
    async addResults(projectId, run, results) {
      const runId = run.id;
      if (FINAL_RUN_STATUSES.has(run.status)) throw new RunStateConflictError(`Run ${runId} is ${run.status}; results can no longer be added`);
      const cases = new Map((await runs.casesOf(runId, [...new Set(results.map((r) => r.case_index))])).map((c) => [c.case_index, c]));
      const issues = results.flatMap((r, i) => resultIssues(run, r, cases.get(r.case_index), i));
      if (issues.length) throw new ValidationError(issues.slice(0, 100));
      const records = results.map((r) => ({ r, ...trialRecord(run, cases.get(r.case_index)!, r) }));
      const scores = records.flatMap(({ r, record }) => scoresOf(runId, r, record));
      // Scores first: a result that reads back has its scores (a retried upload writes the same rows).
      if (scores.length) {
        try {
          await deps.analytics.writeScores(projectId, scores);
        } catch (err) {
          throw writeFailure('analytics', err);
        }
      }
      for (const { r, record, turns } of records) {
        const started = r.started_at ?? Date.now() - r.duration_ms;
        // A conversation's turns before its trial: a trial that reads back has all its turns (each is recorded once).
        for (const [j, turn] of turns.entries()) {
          const at = r.turns![j].started_at ?? started;
          await runs.recordTurn(runId, r.case_index, r.trial, turn, { started_ms: at, ended_ms: at + (turn.latency_ms ?? 0), calls: [] });
        }
        await runs.recordTrial(runId, r.case_index, r.trial, record, { started_ms: started, ended_ms: started + r.duration_ms, calls: [] });
      }
      const after = await runs.get(projectId, runId);
      return { run_id: runId, accepted: results.length, progress: after?.progress ?? run.progress };
    },

    /**
     * `completed` once every trial has a result; `cancelled` records the missing trials
     * cancelled; `failed` keeps what was uploaded, with the error. Completing a run again with
     * the same status answers the run as it is.
     */
    async complete(projectId, run, body) {
      const runId = run.id;
      if (FINAL_RUN_STATUSES.has(run.status)) {
        if (run.status === body.status) return run;
        throw new RunStateConflictError(`Run ${runId} is ${run.status} and cannot be ${body.status}`);
      }
      if (body.status === 'completed' && run.progress.completed < run.progress.total) {
        const missing = run.progress.total - run.progress.completed;
        throw new RunStateConflictError(
          `Run ${runId} has ${missing} case trial${missing === 1 ? '' : 's'} without a result; upload them, or complete the run as cancelled or failed`,
        );
      }
      if (body.status === 'cancelled') await runs.cancelPending(runId);
      await runs.finish(runId, body.status, body.status === 'failed' ? (body.error ?? 'the client reported a failure') : undefined);
      const view = await runs.get(projectId, runId);
      if (!view) throw new NotFoundError('Eval run not found', 'RUN_NOT_FOUND');
      return view;
    },
  };
}
