import { agentCallBody } from '../../core/agents/agent-body.js';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RUNNING_FROM_SOURCES } from '../../core/os/package-files.js';
import type { AgentEvalClient } from '../../sdk/client.js';
import { evaluate, reply, type AgentFunction, type EvaluationResult } from '../../sdk/evaluate.js';
import { defineSuite, type Suite } from '../../sdk/suites.js';
import { callAgent } from '../../core/agents/agent-call.js';
import { agentNameFor, findAgentByEndpoint, isEndpoint } from '../agent-ref.js';
import { connect } from '../client.js';
import { CliError, colorsFor, println, type CliIo } from '../io.js';
import { intOption, parseMinScore } from '../options.js';
import { progressDisplay, turnLineOf } from '../progress.js';
import { loadSuiteFile, looksLikeFile } from '../suite-file.js';
import { findSuite } from '../suite-push.js';
import { reportRun } from '../report-run.js';
import type { RunOptions } from './run.js';

/**
 * `agent-eval run --local`: the SDK's evaluate() runs the agent in this process (a module's
 * function, or an HTTP endpoint called with the managed runs' agent protocol) and uploads the
 * run, its results and traces; no workflow worker is involved.
 */

interface LocalAgent {
  fn: AgentFunction;
  /** How the run names the agent: a registered agent's id links the run to it. */
  name: string;
}

/**
 * A TypeScript agent module needs a loader: the sources run under tsx already, the compiled CLI
 * (dist/) registers tsx's on first use, once. Both of its hooks: a `.ts` file outside a
 * `"type": "module"` package is CommonJS to Node, loaded through `require`'s hook.
 */
let loaderRegistered = RUNNING_FROM_SOURCES;
async function typescriptLoader(): Promise<void> {
  if (loaderRegistered) return;
  const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  esm.register();
  cjs.register();
  loaderRegistered = true;
}

/**
 * A module's exports as its author wrote them: TypeScript compiled to CommonJS (a `.ts` file
 * outside a `"type": "module"` package, loaded through tsx's require hook) reaches `import()` as
 * one `default` export holding them, marked `__esModule`.
 */
function authoredExports(mod: Record<string, unknown>): Record<string, unknown> {
  const inner = mod.default;
  return inner !== null && typeof inner === 'object' && (inner as { __esModule?: unknown }).__esModule === true ? (inner as Record<string, unknown>) : mod;
}

/** `file[:export]`: the module's named export, else its default export, else its `agent` export. */
async function moduleAgent(spec: string): Promise<LocalAgent> {
  const match = /^(.*?)(?::([A-Za-z_$][\w$]*))?$/.exec(spec)!;
  const [, file, exportName] = match;
  const absolute = path.resolve(file);
  if (!fs.existsSync(absolute)) throw new CliError(`Failed to load agent: File not found: ${file}`);
  let mod: Record<string, unknown>;
  try {
    if (/\.[cm]?tsx?$/.test(absolute)) await typescriptLoader();
    mod = authoredExports((await import(pathToFileURL(absolute).href)) as Record<string, unknown>);
  } catch (err) {
    throw new CliError(`Failed to load agent: ${err instanceof Error ? err.message : String(err)}`);
  }
  const name = exportName ?? (typeof mod.default === 'function' ? 'default' : 'agent');
  const fn = mod[name];
  if (typeof fn !== 'function')
    throw new CliError(
      `Failed to load agent: ${file} has no function export '${name}'`,
      'Use --agent <file>:<export>, or export the agent function as default.',
    );
  return { fn: fn as AgentFunction, name: `${path.basename(file)}${name === 'default' ? '' : `:${name}`}` };
}

/**
 * An HTTP agent called as the service's workers call it (docs/evals.md, "Agent protocol"), once
 * per case trial (per turn of a conversation, with the turn and the history in `messages`), no retries.
 */
async function endpointAgent(client: AgentEvalClient, endpoint: string, agentVersion: string): Promise<LocalAgent> {
  const fn: AgentFunction = async (input, ctx) => {
    const single = agentCallBody({
      input,
      caseName: ctx.case.name,
      expected: ctx.case.expected,
      runId: ctx.runId,
      agentVersion,
      traceId: ctx.traceparent.split('-')[1] ?? '',
      trial: ctx.trial,
      sessionId: ctx.sessionId,
    });
    const body = { ...single, turn: ctx.turn, messages: ctx.messages };
    // The SDK's own time-out aborts the signal; this bound is only a backstop. The global fetch:
    // the user's machine calls the user's agent, where the service's egress policy has no say.
    const { reply: answer } = await callAgent({ endpoint, headers: {} }, body, { timeoutMs: 300_000, traceparent: ctx.traceparent, signal: ctx.signal, fetch });
    return reply(answer.output, { toolCalls: answer.tool_calls, usage: answer.usage });
  };
  return { fn, name: (await findAgentByEndpoint(client, endpoint)) ?? agentNameFor(endpoint) };
}

/** The suite of the argument: a YAML file, or a stored suite's latest definition. */
async function localSuite(client: AgentEvalClient, arg: string): Promise<Suite> {
  if (looksLikeFile(arg)) return loadSuiteFile(arg);
  const stored = await client.suites.get((await findSuite(client, arg)).id);
  return defineSuite(stored.definition);
}

export async function runLocal(io: CliIo, suiteArg: string, opts: RunOptions): Promise<void> {
  const minScore = parseMinScore(opts.minScore);
  const concurrency = intOption('--concurrency', opts.concurrency, 1, 1000) ?? 1;
  const timeoutMs = intOption('--timeout-ms', opts.timeoutMs, 1, 300_000);
  const repetitions = intOption('--repetitions', opts.repetitions, 1, 100);
  if (!opts.agent) throw new CliError('Agent is required in local mode. Use --agent <module[:export]> or --agent <endpoint>');
  const file = looksLikeFile(suiteArg) ? await loadSuiteFile(suiteArg) : undefined;
  const client = connect(io);
  const suite = file ?? (await localSuite(client, suiteArg));
  const agent = isEndpoint(opts.agent) ? await endpointAgent(client, opts.agent, opts.agentVersion) : await moduleAgent(opts.agent);

  const display = progressDisplay(io, suite.definition.name);
  const stop = new AbortController();
  const onInterrupt = () => stop.abort(new Error('interrupted'));
  process.once('SIGINT', onInterrupt);
  let result: EvaluationResult;
  try {
    result = await evaluate(suite, {
      client,
      agent: agent.fn,
      agentName: agent.name,
      agentVersion: opts.agentVersion,
      concurrency,
      ...(repetitions ? { repetitions } : {}),
      ...(timeoutMs ? { timeoutMs } : {}),
      throwOnCaseErrors: false,
      signal: stop.signal,
      onProgress: (p) => display.update({ status: 'running', completed: p.completed, total: p.total, passed: p.passed, failed: p.failed }),
      onTurn: (t) => display.turn(turnLineOf({ caseName: t.caseName, trial: t.trial, trials: repetitions ?? 1, of: t.of, kind: t.kind }, t.result)),
    });
    const s = result.summary;
    display.update({
      status: result.run?.status ?? 'completed',
      completed: result.outcomes.length,
      total: result.outcomes.length,
      passed: s.passed,
      failed: s.failed,
    });
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    display.stop();
  }
  const run = result.run;
  if (!run) throw new CliError('Evaluation run failed: the service did not return the run');
  const info = opts.json ? io.stderr : io.stdout;
  const c = colorsFor(info, io.env);
  println(info, `${c.bold('Run')} ${run.run_id}: suite ${suite.definition.name} (local), agent ${run.agent_name}, version ${run.agent_version}`);
  reportRun(io, run, result.cases, minScore, opts.json);
}
