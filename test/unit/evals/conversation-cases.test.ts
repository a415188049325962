import { describe, expect, it } from 'vitest';
import { caseShapeProblem, conversationScorerProblem, EvalCaseSchema, isConversation } from '../../../core/model/case-schema.js';
import { endScorers, turnScoring, turnShortfall } from '../../../core/evals/conversation-scoring.js';
import { caseResultView } from '../../../core/evals/case-results.js';
import type { RunCase, TrialRecord, TurnResult } from '../../../core/model/eval-run.js';
import { answeredTurn } from '../../helpers/turn-result.js';
import { runCaseOf } from '../../helpers/run-case.js';

/** A case's three shapes (docs/evals.md, "Conversations") and which scorer judges what in a conversation. */

const reads = (name: string) => name === 'goalCompletion';

describe('a case is one of three shapes', () => {
  it('takes input, turns or simulation', () => {
    expect(EvalCaseSchema.parse({ name: 'one', input: 'hi' }).input).toBe('hi');
    const scripted = EvalCaseSchema.parse({ name: 's', turns: [{ input: 'I am Ana' }, { input: 'my name?', expected: { outputContains: 'Ana' } }] });
    expect(scripted.turns?.[1].expected.outputContains).toEqual(['Ana']);
    expect(isConversation(scripted)).toBe(true);
    const simulated = EvalCaseSchema.parse({ name: 'u', simulation: { persona: 'Dana', goal: 'a refund', max_turns: 5 } });
    expect(simulated.simulation?.facts).toEqual([]);
    expect(isConversation({ turns: null, simulation: null })).toBe(false);
  });

  it('names the problem when a case gives two shapes, or none', () => {
    expect(caseShapeProblem({ name: 'x', input: 1, turns: [] })).toBe(
      'give exactly one of input (a single call), turns (a scripted conversation) or simulation (a simulated user); this case gives input and turns',
    );
    expect(caseShapeProblem({ name: 'x', input: 1 })).toBeUndefined();
    expect(caseShapeProblem('not a case')).toBeUndefined();
    const none = EvalCaseSchema.safeParse({ name: 'x' });
    expect(none.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['input', 'is required']]);
    const empty = EvalCaseSchema.safeParse({ name: 'x', turns: [] });
    expect(empty.error?.issues[0].message).toBe('a scripted conversation needs at least one turn');
    expect(EvalCaseSchema.safeParse({ name: 'x', turns: [{}] }).error?.issues[0]).toMatchObject({ path: ['turns', 0, 'input'], message: 'is required' });
  });

  it('refuses conversation-level scorers on single-turn cases and on turns', () => {
    const defaults = {
      field: 'scorers',
      refs: [
        { name: 'contains', config: {} },
        { name: 'goalCompletion', config: {} },
      ],
    };
    expect(conversationScorerProblem([{ field: 'dataset.items[0]', turns: [{ input: 'a', expected: {} }] }], defaults, reads)).toBeUndefined();
    expect(conversationScorerProblem([{ field: 'dataset.items[1]' }], defaults, reads)).toBe(
      "scorers[1]: 'goalCompletion' scores a whole conversation and cannot score a single-turn case (dataset.items[1] is a single-turn case and takes these scorers); give it to cases with turns or simulation",
    );
    expect(conversationScorerProblem([{ field: 'cases[2]', scorers: [{ name: 'goalCompletion', config: {} }] }], defaults, reads)).toMatch(
      /^cases\[2\]\.scorers\[0\]: 'goalCompletion' scores a whole conversation/,
    );
    const onTurn = [{ field: 'cases[0]', turns: [{ input: 'a', expected: {}, scorers: [{ name: 'goalCompletion', config: {} }] }] }];
    expect(conversationScorerProblem(onTurn, defaults, reads)).toBe(
      "cases[0].turns[0].scorers[0]: 'goalCompletion' scores a whole conversation: list it in the case's scorers, not a turn's",
    );
  });
});

describe('who scores what in a conversation', () => {
  const runCase: RunCase = runCaseOf('memory', ['contains', 'goalCompletion'], {
    turns: [
      { input: 'I am Ana', expected: {} },
      { input: 'my name?', expected: { outputContains: ['Ana'] } },
      { input: 'bye', expected: {}, scorers: [{ name: 'exactMatch', config: {}, minScore: 1 }] },
    ],
  });

  it('scores a turn with its own scorers, else the case answer scorers when it expects something', () => {
    expect(turnScoring(runCase, 1, reads).refs).toEqual([]);
    expect(turnScoring(runCase, 2, reads).refs.map((r) => r.name)).toEqual(['contains']);
    expect(turnScoring(runCase, 3, reads).refs.map((r) => r.name)).toEqual(['exactMatch']);
    expect(turnScoring(runCase, 4, reads).refs).toEqual([]);
  });

  it('ends with the conversation-level scorers, and the answer scorers when the case expects something', () => {
    expect(endScorers(runCase, reads).map((r) => r.name)).toEqual(['goalCompletion']);
    expect(endScorers({ ...runCase, expected: { outputContains: ['bye'] } }, reads).map((r) => r.name)).toEqual(['goalCompletion', 'contains']);
  });

  const turn = (n: number, over: Partial<TurnResult> = {}): TurnResult => answeredTurn(n, `u${n}`, `a${n}`, { trace_id: 't', ...over });

  it('fails the case on the first turn that falls short, naming it', () => {
    const short = turn(3, { details: { exactMatch: { score: 0, reason: "expected 'bye'", evidence: [] } }, passed: false, avg_score: 0 });
    expect(turnShortfall(runCase, short, 0.7)).toBe("turn 3: scorer 'exactMatch' scored 0, below its minimum 1: expected 'bye'");
    const trial: TrialRecord & { trial: number } = {
      trial: 0,
      status: 'failed',
      details: { goalCompletion: { score: 1, reason: 'met', evidence: [] } },
      avg_score: 0.5,
      passed: false,
      duration_ms: 10,
      latency_ms: 15,
      output: 'a3',
      tool_calls: [],
      usage: null,
      approval: null,
      error: null,
      trace_id: 't',
      turns: [turn(1), turn(2, { details: { contains: { score: 1, reason: '', evidence: [] } }, avg_score: 1 }), short],
      conversation: { ended: 'script_done', turns_done: 3 },
    };
    const view = caseResultView(runCase, [trial], { aggregation: 'mean', minScore: 0.7 });
    expect(view).toMatchObject({ status: 'failed', passed: false, scores: { goalCompletion: 1 } });
    expect(view.error).toBe("turn 3: scorer 'exactMatch' scored 0, below its minimum 1: expected 'bye'");
    const passing = { ...trial, passed: true, status: 'passed' as const, turns: [turn(1), turn(2), turn(3)] };
    expect(caseResultView(runCase, [passing], { aggregation: 'mean', minScore: 0.7 })).toMatchObject({ status: 'passed', passed: true });
  });
});
