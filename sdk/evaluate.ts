import type { ScoreDetail, TokenUsage, ToolCall } from '../core/model/eval-case.js';
import type { CaseResultView, RunCase, RunSummary, RunView } from '../core/model/eval-run.js';
import { casesOfSuite, datasetItems, indexedCases } from '../core/model/run-cases.js';
import { aggregateScores, casePasses, runScorers, type Scorer } from '../core/scoring/index.js';
import { recordCase } from './case-recorder.js';
import { AgentEvalClient, type ClientOptions } from './client.js';
import { AgentEvalError, errorText, EvaluationRunError } from './errors.js';
import { defaultSpanFactory, getTracing } from './global.js';
import { scorerRegistry } from './scorers.js';
import { localResult, ResultUploader } from './run-results.js';
import { defineSuite, isSuite, loadSuite, type Suite, type SuiteDefinitionInput } from './suites.js';
import { Tracing, type SpanFactory, type SpanHandle } from './tracing.js';

/**
 * `evaluate()`: runs a suite against an agent function in this process, scores each answer with
 * the service's scorers (core/scoring) and custom ones, and uploads the run, its case results
 * and their traces, so they show in the API, the comparison and the dashboard like a run the
 * service executed (docs/sdk.md, docs/evals.md "Runs executed outside the service").
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
}

/** An agent: the case's input in, its answer out (any JSON value), or an {@link AgentReply}. */
export type AgentFunction = (input: unknown, context: AgentContext) => unknown;

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

  const client = upload ? (options.client ?? new AgentEvalClient(options)) : undefined;
  let ownTracing: Tracing | undefined;
  let tracer: (SpanFactory & { flush?: () => Promise<void> }) | undefined = options.tracing ?? getTracing();
  if (!tracer && client) {
    ownTracing = new Tracing({ url: client.url, apiKey: client.transport.apiKey, project: client.project, serviceName: agentName, flushOnExit: false });
    tracer = ownTracing;
  }
  // Without upload and without tracing, spans go to OpenTelemetry's global tracer (a no-op unless the app set one).
  const spans: SpanFactory = tracer ?? defaultSpanFactory;

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

  async function runTrial(runCase: RunCase, trial: number): Promise<CaseOutcome & { rootSpanId: string; started: number }> {
    const started = Date.now();
    const attributes = {
      'agent_eval.run_id': runId ?? '',
      'agent_eval.case_index': runCase.case_index,
      'agent_eval.case_name': runCase.name,
      'agent_eval.trial': trial,
      'agent_eval.agent_name': agentName,
      'agent_eval.agent_version': agentVersion,
    };
    return spans.trace(`eval: ${runCase.name}`, { root: true, attributes, input: runCase.input }, async (root) => {
      let output: unknown = null;
      let error: string | null = null;
      const callStart = Date.now();
      const { recording, result } = recordCase(() =>
        spans.span('span', 'agent call', { attributes: { 'agent_eval.agent_name': agentName, 'agent_eval.agent_version': agentVersion } }, (call) =>
          callAgent(
            options.agent,
            runCase.input,
            { case: { index: runCase.case_index, name: runCase.name, expected: runCase.expected }, trial, runId, span: call, traceparent: call.traceparent },
            timeoutMs,
            stop.signal,
          ).then((answer) => {
            call.setOutput(answer instanceof AgentReply ? answer.output : answer);
            return answer;
          }),
        ),
      );
      let answer: unknown;
      try {
        answer = await result;
      } catch (err) {
        error = errorText(err);
      }
      const latencyMs = Date.now() - callStart;
      const explicit = answer instanceof AgentReply ? answer : undefined;
      output = explicit ? explicit.output : (answer ?? null);
      const toolCalls = toolCallsOf(explicit?.toolCalls) ?? recording.toolCalls;
      const usage = explicit?.usage ?? recording.usage;
      let details: Record<string, ScoreDetail> = {};
      if (error === null) {
        details = await runScorers(registry, runCase.scorers, {
          input: runCase.input,
          output,
          expected: runCase.expected,
          toolCalls,
          usage: usage ?? undefined,
          latencyMs,
        });
        for (const [name, d] of Object.entries(details)) {
          spans.span('span', `score: ${name}`, { attributes: { 'agent_eval.scorer': name, 'agent_eval.score': d.score } }, (s) => s.setOutput(d));
        }
      } else {
        root.recordError(new Error(error));
      }
      const avgScore = aggregateScores(details, runCase.scorers, def.aggregation);
      const passed = error === null && casePasses(details, runCase.scorers, runCase.min_score ?? def.defaultMinScore);
      root.setOutput(output);
      root.setAttributes({ 'agent_eval.case_status': passed ? 'passed' : 'failed', 'agent_eval.avg_score': avgScore });
      return {
        caseIndex: runCase.case_index,
        caseName: runCase.name,
        trial,
        status: passed ? 'passed' : 'failed',
        passed,
        avgScore,
        details,
        output,
        error,
        durationMs: Date.now() - started,
        latencyMs,
        traceId: root.traceId,
        toolCalls,
        usage,
        rootSpanId: root.spanId,
        started,
      };
    });
  }

  async function worker(): Promise<void> {
    while (next < total && !stop.signal.aborted && !uploader?.failure) {
      const i = next++;
      const runCase = cases[Math.floor(i / repetitions)];
      const outcome = await runTrial(runCase, i % repetitions);
      const { rootSpanId, started, ...plain } = outcome;
      outcomes.push(plain);
      if (plain.passed) passedCount++;
      uploader?.push({
        case_index: plain.caseIndex,
        trial: plain.trial,
        details: plain.details,
        output: plain.output,
        tool_calls: plain.toolCalls,
        usage: plain.usage,
        error: plain.error,
        duration_ms: plain.durationMs,
        latency_ms: plain.latencyMs,
        trace_id: plain.traceId === '00000000000000000000000000000000' ? null : plain.traceId,
        span_id: rootSpanId === '0000000000000000' ? null : rootSpanId,
        started_at: started,
      });
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
