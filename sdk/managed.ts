import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { CreateRunSchema, RunConfigSchema, RunView } from '../core/model/eval-run.js';
import { FINAL_RUN_STATUSES } from '../core/model/eval-run.js';
import { casesOfSuite, datasetItems } from '../core/model/run-cases.js';
import { AgentEvalClient, type ClientOptions, type RunStatusView } from './client.js';
import { AgentEvalError, EvaluationRunError } from './errors.js';
import type { EvaluationResult } from './evaluate.js';
import { defineSuite, isSuite, loadSuite, type Suite, type SuiteDefinitionInput } from './suites.js';

/**
 * Managed execution: the service's workflows run the suite against a registered agent (an HTTP
 * endpoint), durably (docs/evals.md). `startRun()` starts one, `waitForRun()` follows it.
 */

export interface StartRunOptions extends ClientOptions {
  /** A stored suite's name (first family), or a suite in code or a YAML path (sent as an inline dataset). */
  suite: string | Suite | SuiteDefinitionInput;
  /** A registered agent's id or name (default: the suite's agent). */
  agent?: string;
  agentVersion?: string;
  /** A stored suite's version (default: the latest). */
  suiteVersion?: number;
  /** The run's name (inline suites only). */
  name?: string;
  config?: z.input<typeof RunConfigSchema>;
  client?: AgentEvalClient;
  /**
   * The run's Idempotency-Key (default: a new random one per call): a request whose answer was
   * lost is sent again and gets the same run, never a second one (docs/api.md).
   */
  idempotencyKey?: string;
}

const clientOf = (o: ClientOptions & { client?: AgentEvalClient }) => o.client ?? new AgentEvalClient(o);

/**
 * Starts a run on the service's workflows and resolves with it (`pending`). A string `suite`
 * not ending in `.yaml` / `.yml` names a stored suite; anything else is sent as an inline
 * dataset, so custom (defineScorer) scorers cannot be used: they run only in `evaluate()`.
 */
export async function startRun(options: StartRunOptions): Promise<RunView> {
  const client = clientOf(options);
  const agentVersion = options.agentVersion ?? 'unversioned';
  const once = { idempotencyKey: options.idempotencyKey ?? randomUUID() };
  if (typeof options.suite === 'string' && !/\.ya?ml$/i.test(options.suite)) {
    return client.runs.createFromSuite(
      { suite_name: options.suite, agent_version: agentVersion, agent_id: options.agent, suite_version: options.suiteVersion, config: options.config },
      once,
    );
  }
  const suite = typeof options.suite === 'string' ? await loadSuite(options.suite) : isSuite(options.suite) ? options.suite : defineSuite(options.suite);
  if (suite.scorers.length) {
    throw new AgentEvalError(`custom scorers (${suite.scorers.map((s) => s.name).join(', ')}) run only in this process: use evaluate() for this suite`);
  }
  const def = suite.definition;
  const agentId = options.agent ?? def.agent_id;
  if (!agentId) throw new AgentEvalError('agentId is required: name a registered agent (agent), or give the suite one');
  const items = datasetItems(casesOfSuite(def));
  // Every item carries its scorers, so the run's own list only has to be non-empty (the SPEC's rule).
  const body: z.input<typeof CreateRunSchema> = {
    agentId,
    agentVersion,
    name: options.name ?? def.name,
    dataset: { items },
    scorers: def.defaultScorers.length ? def.defaultScorers : items[0].scorers,
    config: { ...options.config, minScore: def.defaultMinScore, aggregation: def.aggregation },
  };
  return client.runs.create(body, once);
}

export interface WaitOptions extends ClientOptions {
  client?: AgentEvalClient;
  /** Poll interval in ms (default 1,000). */
  intervalMs?: number;
  /** Give up after this many ms (default: wait as long as it takes). */
  timeoutMs?: number;
  onProgress?: (status: RunStatusView) => void;
  /** Reject with `Evaluation run failed` when a case ended with an error; default true. */
  throwOnCaseErrors?: boolean;
  signal?: AbortSignal;
}

/**
 * Polls `GET /api/runs/{id}/status` until the run is final, then resolves with the run and its
 * results. Rejects with `Evaluation run failed: {message}` when the run ended `failed` or
 * `cancelled`, or (unless `throwOnCaseErrors` is false) when a case ended with an error.
 */
export async function waitForRun(runId: string, options: WaitOptions = {}): Promise<EvaluationResult> {
  const client = clientOf(options);
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  for (;;) {
    const status = await client.runs.status(runId);
    options.onProgress?.(status);
    if (FINAL_RUN_STATUSES.has(status.status)) break;
    if (Date.now() > deadline) throw new EvaluationRunError(`run ${runId} did not finish within ${options.timeoutMs} ms (it is ${status.status})`, { runId });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, options.intervalMs ?? 1000);
      options.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(options.signal!.reason as Error)), { once: true });
    });
  }
  const [run, { results }] = await Promise.all([client.runs.get(runId), client.runs.results(runId)]);
  const result: EvaluationResult = {
    runId,
    run,
    cases: results,
    summary: run.summary,
    passed: results.every((c) => c.status === 'passed'),
    outcomes: [],
    url: `${client.url}/runs/${runId}`,
  };
  if (run.status === 'failed') throw Object.assign(new EvaluationRunError(run.error ?? `run ${runId} failed`, { runId }), { result });
  if (run.status === 'cancelled') throw Object.assign(new EvaluationRunError(`run ${runId} was cancelled`, { runId }), { result });
  // Cases whose agent call ended with an error (a trial's error); a case that failed on its scores
  // carries the shortfall as its `error` too (SPEC), and is a failed case, not an errored one.
  const errored = results.filter((c) => c.trials.some((t) => t.error));
  if (errored.length && (options.throwOnCaseErrors ?? true)) {
    throw Object.assign(
      new EvaluationRunError(`${errored.length} of ${results.length} cases ended with an error (first: case '${errored[0].case_name}': ${errored[0].error})`, {
        runId,
      }),
      { result },
    );
  }
  return result;
}
