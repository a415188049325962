import type { TokenUsage, ToolCall } from '../core/model/eval-case.js';
import type { CaseResultView, ConversationRecord, RunCase, RunSummary, RunView, TurnResult } from '../core/model/eval-run.js';
import type { LlmMessage } from '../core/model/messages.js';
import { casesOfSuite, datasetItems, indexedCases } from '../core/model/run-cases.js';
import type { Scorer, ScoreDetail } from '../core/scoring/index.js';
import { trialRunner } from './case-trials.js';
import { AgentEvalClient, type ClientOptions } from './client.js';
import { AgentEvalError, errorText, EvaluationRunError } from './errors.js';
import { defaultSpanFactory, getTracing } from './global.js';
import { localRunJudge, scorerRegistry } from './scorers.js';
import { localResult, ResultUploader, uploadOf } from './run-results.js';
import { environmentPlayer, functionPlayer, type SimulatedUserFunction, type UserPlayer } from './simulated-user.js';
import { defineSuite, isSuite, loadSuite, type Suite, type SuiteDefinitionInput } from './suites.js';
import { Tracing, type SpanFactory, type SpanHandle } from './tracing.js';

/**
 * `evaluate()`: runs a suite against an agent function in this process, scores each answer with
 * the service's scorers (core/scoring) and custom ones, and uploads the run, its case results
 * and their traces, so they show in the API, the comparison and the dashboard like a run the
 * service executed (docs/sdk.md, docs/evals.md "Runs executed outside the service"). Conversation
 * cases (scripted turns, simulated users) run turn by turn through the one conversation loop
 * (core/conversations/conversation-loop.ts), the agent function called once per turn.
 */

/** What the agent function is told about the case it answers. */
export interface AgentContext {
  case: { index: number; name: string; expected: Record<string, unknown> };
  /** 0-based repetition of the case. */
  trial: number;
  /** The run being executed (undefined with `upload: false`). */
  runId: string | undefined;
  /** The case's root span; the agent's own spans nest under it. */
  span: SpanHandle;
  /** `traceparent` of the case's span, for calls the agent makes to other services. */
  traceparent: string;
  /** Aborted when the case times out or the evaluation is cancelled. */
  signal: AbortSignal;
  /** The conversation's id (the agent protocol's `session_id`): the same for every turn of one trial of a case. */
  sessionId: string;
  /** The turn this call answers, 1-based: 1 for a single-turn case. */
  turn: number;
  /**
   * The conversation so far in the product's message model (`{role, content, tool_calls?}`),
   * ending with this turn's user message: for a single-turn case, that one message (the input
   * as text). An agent with memory answers from it; one that reads only `input` still works.
   */
  messages: LlmMessage[];
}

/** An agent: the case's input in, its answer out (any JSON value), or an {@link AgentReply}. */
export type AgentFunction = (input: unknown, context: AgentContext) => unknown;

export { AgentReply, reply } from './case-trials.js';

/** One case trial as it finished. */
export interface CaseOutcome {
  caseIndex: number;
  caseName: string;
  trial: number;
  status: 'passed' | 'failed';
  passed: boolean;
  avgScore: number;
  details: Record<string, ScoreDetail>;
  output: unknown;
  error: string | null;
  durationMs: number;
  latencyMs: number;
  traceId: string;
  toolCalls: ToolCall[];
  usage: TokenUsage | null;
  /**
   * A conversation case's turns, in order (absent for single-turn cases): each with its user
   * message, the agent's answer and the turn's own scores. `details` then holds the
   * conversation's scores (its conversation-level and answer scorers'); `output`, `toolCalls`,
   * `usage` and `latencyMs` are the last answer and the turns' totals.
   */
  turns?: TurnResult[];
  /** How a conversation ended (`ended` null when it did not: a turn failed) and the turns the agent answered. */
  conversation?: ConversationRecord;
}

/** One turn of a conversation case as it was scored (`onTurn`). */
export interface TurnProgress {
  caseIndex: number;
  caseName: string;
  trial: number;
  /** 1-based. */
  turn: number;
  /** The turns the case may have: its script's length, or its simulated user's `max_turns`. */
  of: number;
  kind: 'scripted' | 'simulated';
  /** The turn as recorded: `passed`, its scores in `details` (`avg_score` null when the turn has no scorers), `error` when the agent failed. */
  result: TurnResult;
  runId: string | undefined;
}

export interface EvaluateProgress {
  completed: number;
  total: number;
  passed: number;
  failed: number;
  /** The trial that just finished. */
  last: CaseOutcome;
  runId: string | undefined;
}

export interface EvaluateOptions extends ClientOptions {
  agent: AgentFunction;
  /** Case trials at once (default 4). */
  concurrency?: number;
  /** Trials per case (default 1). */
  repetitions?: number;
  /** Time one agent call may take, in ms (default 300,000, as for managed runs). */
  timeoutMs?: number;
  /** The agent's name on the run (a registered agent's name links the run to it); default: the suite's agent, the function's name, or `local-agent`. */
  agentName?: string;
  /** The version label runs are compared by (default `unversioned`). */
  agentVersion?: string;
  /** The run's name (e.g. the CI build). */
  name?: string;
  /** More custom scorers (those a YAML file names). */
  scorers?: readonly Scorer[];
  /** Called after each case trial. */
  onProgress?: (progress: EvaluateProgress) => void;
  /** Called after each turn of a conversation case, as soon as it is scored. */
  onTurn?: (progress: TurnProgress) => void;
  /**
   * Plays the simulated users of `simulation` cases instead of an LLM: `({simulation, turn,
   * messages}) => ({message, stop?})`. Default: an LLM through this process's own provider
   * configuration (`providerEnv`); without one, a suite with a simulated user is refused before
   * the run is created.
   */
  simulatedUser?: SimulatedUserFunction;
  /** Where the simulated users' LLM provider is configured (ANTHROPIC_API_KEY, OPENAI_API_KEY, JUDGE_PROVIDER...; docs/judges.md); default `process.env`. */
  providerEnv?: Record<string, string | undefined>;
  /** Upload the run to the service (default true); false runs and scores locally only. */
  upload?: boolean;
  /** A client to upload with (default: one built from url/apiKey/project or the environment). */
  client?: AgentEvalClient;
  /** Where the cases' spans go (default: the tracing init() set up, else one exporting to the client's service). */
  tracing?: Tracing;
  /** Reject with `Evaluation run failed` when a case ended with an error (the agent threw or timed out); default true. */
  throwOnCaseErrors?: boolean;
  signal?: AbortSignal;
}

export interface EvaluationResult {
  runId: string | undefined;
  /** The run as the service shows it (undefined with `upload: false`). */
  run: RunView | undefined;
  /** Case results as the service computes them (the same functions, core/evals). */
  cases: CaseResultView[];
  summary: RunSummary;
  /** Every case passed. */
  passed: boolean;
  /** Each trial as it ran. */
  outcomes: CaseOutcome[];
  /** The run's page on the dashboard. */
  url: string | undefined;
}

async function resolveSuite(suite: Suite | SuiteDefinitionInput | string, scorers: readonly Scorer[]): Promise<Suite> {
  if (typeof suite === 'string') return loadSuite(suite, { scorers });
  if (isSuite(suite)) return scorers.length ? defineSuite(suite.definition, { scorers: [...suite.scorers, ...scorers] }) : suite;
  return defineSuite(suite, { scorers });
}

/**
 * Runs `suite` (a {@link Suite}, a definition, or a YAML file's path) against `agent`, up to
 * `concurrency` case trials at once. Each trial is a trace (`eval: {case}`) whose root span holds
 * the agent's own spans; tool calls and token usage the agent records with this SDK's `tool()` and
 * `generation()` feed the `toolSelection` and `tokenEfficiency` scorers. Results are uploaded as
 * they come (a local run: POST /api/runs with `execution: "local"`, then /results, /complete).
 *
 * Resolves with the run; rejects with `Evaluation run failed: {message}` when it could not be
 * run or uploaded, or (unless `throwOnCaseErrors` is false) when a case ended with an error.
 */
export async function evaluate(suite: Suite | SuiteDefinitionInput | string, options: EvaluateOptions): Promise<EvaluationResult> {
  if (typeof options.agent !== 'function') throw new TypeError('evaluate() needs an agent function');
  const resolved = await resolveSuite(suite, options.scorers ?? []);
  const def = resolved.definition;
  const registry = scorerRegistry(resolved.scorers);
  const repetitions = options.repetitions ?? 1;
  const concurrency = Math.max(1, Math.min(1000, options.concurrency ?? 4));
  const timeoutMs = options.timeoutMs ?? 300_000;
  const upload = options.upload ?? true;
  const agentVersion = options.agentVersion ?? 'unversioned';
  const agentName = options.agentName ?? def.agent_id ?? (options.agent.name || 'local-agent');
  const cases: RunCase[] = indexedCases(casesOfSuite(def));

  // LLM judges run on the service, never here: a suite that needs one is refused before any run exists.
  const judge = localRunJudge(registry, cases);
  if (judge)
    throw new EvaluationRunError(
      `case '${judge.caseName}' is scored by the LLM judge '${judge.scorer}': LLM judges run on the service, not in a local run; run the suite there (startRun(), or agent-eval run without --local), or score it here with rule scorers (knowledgeRetention with facts)`,
    );

  const client = upload ? (options.client ?? new AgentEvalClient(options)) : undefined;
  let ownTracing: Tracing | undefined;
  let tracer: (SpanFactory & { flush?: () => Promise<void> }) | undefined = options.tracing ?? getTracing();
  if (!tracer && client) {
    ownTracing = new Tracing({ url: client.url, apiKey: client.transport.apiKey, project: client.project, serviceName: agentName, flushOnExit: false });
    tracer = ownTracing;
  }
  // Without upload and without tracing, spans go to OpenTelemetry's global tracer (a no-op unless the app set one).
  const spans: SpanFactory = tracer ?? defaultSpanFactory;

  // Simulated users are played here, before any run exists: no way to play them, no run.
  let player: UserPlayer | undefined;
  const simulated = cases.find((c) => c.simulation);
  if (simulated) {
    try {
      player = options.simulatedUser ? functionPlayer(options.simulatedUser) : await environmentPlayer(options.providerEnv ?? process.env, spans);
    } catch (err) {
      await ownTracing?.shutdown().catch(() => undefined);
      throw new EvaluationRunError(`case '${simulated.name}' has a simulated user: ${errorText(err)}`, { cause: err });
    }
  }

  let run: RunView | undefined;
  if (client) {
    try {
      run = await client.runs.createLocal({
        agentId: agentName,
        agentVersion,
        name: options.name,
        suite: { name: def.name },
        dataset: { items: datasetItems(cases) },
        scorers: def.defaultScorers,
        config: {
          minScore: def.defaultMinScore,
          aggregation: def.aggregation,
          repetitions,
          parallel: concurrency > 1,
          concurrency,
          timeout_ms: Math.min(timeoutMs, 300_000),
        },
      });
    } catch (err) {
      await ownTracing?.shutdown().catch(() => undefined);
      throw new EvaluationRunError(errorText(err), { statusCode: (err as AgentEvalError).statusCode, cause: err });
    }
  }
  const runId = run?.id;
  const uploader = client && runId ? new ResultUploader(client, runId) : undefined;

  const outcomes: CaseOutcome[] = [];
  const total = cases.length * repetitions;
  let passedCount = 0;
  let next = 0;
  const stop = new AbortController();
  const onOuterAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const runTrial = trialRunner({
    agent: options.agent,
    timeoutMs,
    onTurn: options.onTurn,
    spans,
    registry,
    scoring: { aggregation: def.aggregation, minScore: def.defaultMinScore },
    agentName,
    agentVersion,
    runId,
    signal: stop.signal,
    player,
  });

  async function worker(): Promise<void> {
    while (next < total && !stop.signal.aborted && !uploader?.failure) {
      const i = next++;
      const runCase = cases[Math.floor(i / repetitions)];
      const outcome = await runTrial(runCase, i % repetitions);
      const { rootSpanId, started, ...plain } = outcome;
      outcomes.push(plain);
      if (plain.passed) passedCount++;
      uploader?.push(uploadOf(plain, rootSpanId, started));
      options.onProgress?.({ completed: outcomes.length, total, passed: passedCount, failed: outcomes.length - passedCount, last: plain, runId });
    }
  }

  let failure: unknown;
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
    await uploader?.drain();
  } catch (err) {
    failure = err;
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
  failure ??= uploader?.failure;
  // Traces before the run completes: a completed run's traces are all sent.
  await (ownTracing ?? tracer)?.flush?.().catch(() => undefined);
  await ownTracing?.shutdown().catch(() => undefined);

  if (client && runId) {
    try {
      if (failure) {
        await client.runs.complete(runId, { status: 'failed', error: errorText(failure).slice(0, 4096) }).catch(() => undefined);
        throw new EvaluationRunError(errorText(failure), { runId, statusCode: (failure as AgentEvalError).statusCode, cause: failure });
      }
      if (stop.signal.aborted) {
        await client.runs.complete(runId, { status: 'cancelled' }).catch(() => undefined);
        throw new EvaluationRunError(`run ${runId} was cancelled`, { runId, cause: options.signal?.reason });
      }
      run = await client.runs.complete(runId, { status: 'completed' });
    } catch (err) {
      if (err instanceof EvaluationRunError) throw err;
      throw new EvaluationRunError(errorText(err), { runId, statusCode: (err as AgentEvalError).statusCode, cause: err });
    }
  } else if (failure) {
    throw new EvaluationRunError(errorText(failure), { cause: failure });
  } else if (stop.signal.aborted) {
    throw new EvaluationRunError('the evaluation was cancelled', { cause: options.signal?.reason });
  }

  const result = localResult(cases, outcomes, def, run, client);
  const errored = outcomes.filter((o) => o.error !== null);
  if (errored.length && (options.throwOnCaseErrors ?? true)) {
    const first = errored[0];
    const err = new EvaluationRunError(`${errored.length} of ${total} case trials ended with an error (first: case '${first.caseName}': ${first.error})`, {
      runId,
    });
    throw Object.assign(err, { result });
  }
  return result;
}
