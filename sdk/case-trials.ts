import { caseSessionId, inputText } from '../core/agents/agent-body.js';
import { conversationUsage, runConversation, type ConversationScoring, type TurnAnswer } from '../core/conversations/conversation-loop.js';
import { isConversation } from '../core/model/case-schema.js';
import type { ScoreDetail, ScorerRef, TokenUsage, ToolCall } from '../core/model/eval-case.js';
import type { RunCase } from '../core/model/eval-run.js';
import { aggregateScores, casePasses, runScorers, type ScoreInput, type ScorerRegistry } from '../core/scoring/index.js';
import { recordCase } from './case-recorder.js';
import { errorText } from './errors.js';
import type { AgentContext, AgentFunction, CaseOutcome, EvaluateOptions } from './evaluate.js';
import { NO_TRACE } from './run-results.js';
import type { UserPlayer } from './simulated-user.js';
import type { SpanFactory, SpanHandle } from './tracing.js';

/**
 * One case trial of evaluate() (docs/sdk.md): the agent called in a span of the trial's trace
 * (`eval: {case}`), its answer scored; a conversation case turn by turn through the one
 * conversation loop (core/conversations/conversation-loop.ts), a span per turn's agent call and
 * scores, the conversation's scores at the end.
 */

/** An answer with what the scorers read beside the output (otherwise taken from the agent's tool and generation spans). */
export class AgentReply {
  constructor(
    readonly output: unknown,
    readonly toolCalls?: Array<string | ToolCall>,
    readonly usage?: TokenUsage,
  ) {}
}

/** `return reply(output, {toolCalls, usage})` from an agent to name its tool calls and token usage explicitly. */
export function reply(output: unknown, extra: { toolCalls?: Array<string | ToolCall>; usage?: TokenUsage } = {}): AgentReply {
  return new AgentReply(output, extra.toolCalls, extra.usage);
}

function toolCallsOf(list: Array<string | ToolCall> | undefined): ToolCall[] | undefined {
  return list?.map((c) => (typeof c === 'string' ? { name: c } : c));
}

/** Runs `agent` with a time-out; the signal tells the agent to stop. */
async function callAgent(agent: AgentFunction, input: unknown, ctx: Omit<AgentContext, 'signal'>, timeoutMs: number, outer?: AbortSignal): Promise<unknown> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(`agent did not answer within ${timeoutMs} ms`);
      controller.abort(err);
      reject(err);
    }, timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => agent(input, { ...ctx, signal: controller.signal })), timeout]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/** What a trial ended with, before the fields of its kind (one turn or a conversation). */
interface TrialVerdict {
  passed: boolean;
  avgScore: number;
  details: Record<string, ScoreDetail>;
  output: unknown;
  error: string | null;
  started: number;
}

/** Puts a trial's verdict on its root span (output, status, average, `attributes`) and gives the outcome fields every trial has. */
function verdict(root: SpanHandle, runCase: RunCase, trial: number, v: TrialVerdict, attributes: Record<string, string | number> = {}) {
  const status: 'passed' | 'failed' = v.passed ? 'passed' : 'failed';
  root.setOutput(v.output);
  root.setAttributes({ 'agent_eval.case_status': status, 'agent_eval.avg_score': v.avgScore, ...attributes });
  const { started, ...rest } = v;
  return {
    caseIndex: runCase.case_index,
    caseName: runCase.name,
    trial,
    status,
    ...rest,
    durationMs: Date.now() - started,
    traceId: root.traceId,
    rootSpanId: root.spanId,
    started,
  } as const;
}

/** What a trial needs from the evaluation it is part of. */
export interface TrialDeps extends Pick<EvaluateOptions, 'agent' | 'onTurn'> {
  timeoutMs: number;
  spans: SpanFactory;
  registry: ScorerRegistry;
  /** The suite's aggregation and minimum score (a case's own minimum wins). */
  scoring: ConversationScoring;
  agentName: string;
  agentVersion: string;
  runId: string | undefined;
  /** Aborted when the evaluation is cancelled. */
  signal: AbortSignal;
  /** Plays the simulated users (undefined when the suite has none). */
  player: UserPlayer | undefined;
}

/** A finished trial, with its root span and start for the upload. */
export type Trial = CaseOutcome & { rootSpanId: string; started: number };

/** Runs one trial of a case (a single call, or a conversation turn by turn). */
export function trialRunner(d: TrialDeps): (runCase: RunCase, trial: number) => Promise<Trial> {
  const { spans, registry, agentName, agentVersion, runId, timeoutMs, player, scoring } = d;

  const traceAttributes = (runCase: RunCase, trial: number) => ({
    'agent_eval.run_id': runId ?? '',
    'agent_eval.case_index': runCase.case_index,
    'agent_eval.case_name': runCase.name,
    'agent_eval.trial': trial,
    'agent_eval.agent_name': agentName,
    'agent_eval.agent_version': agentVersion,
  });

  /** One call of the agent (a case, or one turn of a conversation) in its own span; what the scorers read of it. */
  async function agentTurn(
    runCase: RunCase,
    trial: number,
    input: unknown,
    conversation: Pick<AgentContext, 'sessionId' | 'turn' | 'messages'>,
    spanName: string,
  ): Promise<{ answer: TurnAnswer; error: string | null }> {
    const callStart = Date.now();
    const turnAttributes = runCase.turns || runCase.simulation ? { 'agent_eval.turn': conversation.turn } : {};
    const { recording, result } = recordCase(() =>
      spans.span(
        'span',
        spanName,
        { attributes: { 'agent_eval.agent_name': agentName, 'agent_eval.agent_version': agentVersion, ...turnAttributes } },
        (call) =>
          callAgent(
            d.agent,
            input,
            {
              case: { index: runCase.case_index, name: runCase.name, expected: runCase.expected },
              trial,
              runId,
              span: call,
              traceparent: call.traceparent,
              ...conversation,
            },
            timeoutMs,
            d.signal,
          ).then((answer) => {
            call.setOutput(answer instanceof AgentReply ? answer.output : answer);
            return answer;
          }),
      ),
    );
    let answer: unknown;
    let error: string | null = null;
    try {
      answer = await result;
    } catch (err) {
      error = errorText(err);
    }
    const explicit = answer instanceof AgentReply ? answer : undefined;
    return {
      answer: {
        output: explicit ? explicit.output : (answer ?? null),
        toolCalls: toolCallsOf(explicit?.toolCalls) ?? recording.toolCalls,
        usage: explicit?.usage ?? recording.usage,
        latencyMs: Date.now() - callStart,
      },
      error,
    };
  }

  /** Scores in a span each (`score: {scorer}`, `turn {n}: score: {scorer}` for a turn's). */
  async function scored(refs: ScorerRef[], input: Omit<ScoreInput, 'config'>, turn?: number): Promise<Record<string, ScoreDetail>> {
    const details = await runScorers(registry, refs, input);
    for (const [name, d] of Object.entries(details)) {
      spans.span(
        'span',
        `${turn === undefined ? '' : `turn ${turn}: `}score: ${name}`,
        { attributes: { 'agent_eval.scorer': name, 'agent_eval.score': d.score, ...(turn === undefined ? {} : { 'agent_eval.turn': turn }) } },
        (s) => s.setOutput(d),
      );
    }
    return details;
  }

  async function runTrial(runCase: RunCase, trial: number): Promise<Trial> {
    if (isConversation(runCase)) return runConversationTrial(runCase, trial);
    const started = Date.now();
    return spans.trace(`eval: ${runCase.name}`, { root: true, attributes: traceAttributes(runCase, trial), input: runCase.input }, async (root) => {
      const sessionId = caseSessionId(runId ?? root.traceId, runCase.case_index, trial);
      root.setAttributes({ 'session.id': sessionId });
      const { answer, error } = await agentTurn(
        runCase,
        trial,
        runCase.input,
        { sessionId, turn: 1, messages: [{ role: 'user', content: inputText(runCase.input) }] },
        'agent call',
      );
      const { output, toolCalls, usage, latencyMs } = answer;
      let details: Record<string, ScoreDetail> = {};
      if (error === null) {
        details = await scored(runCase.scorers, { input: runCase.input, output, expected: runCase.expected, toolCalls, usage: usage ?? undefined, latencyMs });
      } else {
        root.recordError(new Error(error));
      }
      const avgScore = aggregateScores(details, runCase.scorers, scoring.aggregation);
      const passed = error === null && casePasses(details, runCase.scorers, runCase.min_score ?? scoring.minScore);
      return {
        ...verdict(root, runCase, trial, { passed, avgScore, details, output, error, started }),
        latencyMs,
        toolCalls,
        usage,
      };
    });
  }

  /** A conversation case's trial: one trace, a span per turn's agent call and scores, the conversation's scores at the end. */
  async function runConversationTrial(runCase: RunCase, trial: number): Promise<Trial> {
    const started = Date.now();
    const of = runCase.turns ? runCase.turns.length : runCase.simulation!.max_turns;
    const kind = runCase.turns ? 'scripted' : 'simulated';
    const input = runCase.turns ? { turns: runCase.turns.map((t) => t.input) } : { simulation: runCase.simulation };
    return spans.trace(`eval: ${runCase.name}`, { root: true, attributes: traceAttributes(runCase, trial), input }, async (root) => {
      const sessionId = caseSessionId(runId ?? root.traceId, runCase.case_index, trial);
      root.setAttributes({ 'session.id': sessionId });
      const traceId = root.traceId === NO_TRACE ? null : root.traceId;
      const ran = await runConversation({
        runCase,
        scoring: { ...scoring, minScore: runCase.min_score ?? scoring.minScore },
        registry,
        sessionId,
        traceId,
        async callAgent(call) {
          const { answer, error } = await agentTurn(
            runCase,
            trial,
            call.input,
            { sessionId, turn: call.turn, messages: call.messages },
            `turn ${call.turn}: agent call`,
          );
          if (error !== null) throw new Error(error);
          return answer;
        },
        ...(player
          ? {
              simulateUser: (u) =>
                player({
                  case: { index: runCase.case_index, name: runCase.name },
                  trial,
                  simulation: u.simulation,
                  turn: u.turn,
                  messages: u.messages,
                  signal: d.signal,
                }),
            }
          : {}),
        score: (refs, scoreInput, turn) => scored(refs, scoreInput, turn),
        onTurn: (result) => d.onTurn?.({ caseIndex: runCase.case_index, caseName: runCase.name, trial, turn: result.turn, of, kind, result, runId }),
        signal: d.signal,
      });
      const answered = ran.turns.filter((t) => t.error === null);
      const last = answered.at(-1);
      const { passed, avgScore } = ran.verdict;
      if (ran.error !== null) root.recordError(new Error(ran.error));
      const attributes = { 'agent_eval.turns': ran.turns.length, ...(ran.ended ? { 'agent_eval.conversation_ended': ran.ended } : {}) };
      return {
        ...verdict(root, runCase, trial, { passed, avgScore, details: ran.details, output: last?.output ?? null, error: ran.error, started }, attributes),
        latencyMs: ran.turns.reduce((sum, t) => sum + (t.latency_ms ?? 0), 0),
        toolCalls: answered.flatMap((t) => t.tool_calls ?? []),
        usage: conversationUsage(answered),
        turns: ran.turns,
        conversation: ran.conversation,
      };
    });
  }

  return runTrial;
}
