import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getJson, machineBusySeconds, median, round, sleep, summarize, threadCpuSeconds } from './lib.js';
import { caseTimeline } from './temporal-history.js';
import { serviceEnv, benchApi, startBenchService, type BenchService } from './service.js';

/**
 * Issue 8: evaluation runs. A fast local HTTP agent (it answers at once with
 * `{output, tool_calls, usage}`), then:
 *   (a) direct: the agent called over HTTP by this process, sequentially, `cases` times, with the
 *       body the worker sends (`callAgent`: fetch, JSON body, `traceparent`): ms per call;
 *   (b) a sequential run of `cases` cases (`config.parallel: false`): wall time from the POST to
 *       the run seen `completed` (GET /api/runs/{id} every `pollMs`), and the run's own
 *       started_at -> completed_at; cases/s; overhead per case = wall / cases - direct ms per call;
 *   (c) a parallel run (`parallel: true`, `concurrency` or the service's default): cases/s.
 * Every run is checked: status completed, summary.total_cases == cases, every case passed, the
 * agent called once per case. CPU per case is the service's whole process tree (the service
 * process with chDB and the evaluation worker, the Temporal dev server, PostgreSQL). Where the
 * time of a case goes is read back from the Temporal histories of the run's workflows (server
 * timestamps of every workflow task and activity).
 * Run: `npm run bench -- eval-runs [--cases N] [--concurrency N] [--poll-ms N] [--runs N] [--quick]`.
 */
export interface EvalRunsBenchOptions {
  cases: number;
  /** Children at once in the parallel run; undefined: the service's default (EVAL_MAX_CONCURRENCY, 10). */
  concurrency?: number;
  pollMs: number;
  /** Cases of the warm-up run (parallel) made before anything is measured. */
  warmupCases: number;
  /** Calls to the agent before the direct calls are timed. */
  directWarmup: number;
}

// ---------------------------------------------------------------------------------------------
// The agent

interface FastAgent {
  url: string;
  /** Calls received per run id (the direct calls are under 'direct'). */
  calls: Map<string, number>;
  close(): Promise<void>;
}

/** Answers every POST at once with the case's `input.answer`, no tool calls, a fixed usage. */
async function startFastAgent(): Promise<FastAgent> {
  const calls = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: { input?: { answer?: string }; run_id?: string } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        // an empty answer then; the case fails and the bench says so
      }
      const run = body.run_id ?? '?';
      calls.set(run, (calls.get(run) ?? 0) + 1);
      const answer = JSON.stringify({ output: body.input?.answer ?? '', tool_calls: [], usage: { input_tokens: 12, output_tokens: 6 } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/agent`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const item = (i: number) => ({
  name: `case-${i}`,
  input: { question: `what is item ${i}?`, answer: `the answer is item ${i}` },
  expected: { outputContains: ['answer', `item ${i}`] },
});

/** (a) The agent as the worker calls it (core/agents/agent-call.ts: global fetch, the same body and headers), one call at a time. */
async function direct(agentUrl: string, calls: number, warmup: number) {
  const call = async (i: number) => {
    const it = item(i);
    const body = {
      input: it.input,
      case: { name: it.name, expected: it.expected },
      run_id: 'direct',
      agent_version: 'bench',
      trace_id: '0'.repeat(32),
      trial: 0,
    };
    const t = performance.now();
    const res = await fetch(agentUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', traceparent: `00-${'0'.repeat(31)}1-${'0'.repeat(15)}1-01` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
      redirect: 'error',
    });
    const reply = JSON.parse(await res.text()) as { output: string };
    if (!res.ok || !reply.output.includes(`item ${i}`)) throw new Error(`direct call ${i}: ${res.status}`);
    return performance.now() - t;
  };
  for (let i = 0; i < warmup; i++) await call(i);
  const ms: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) ms.push(await call(i));
  const total = performance.now() - t0;
  return { calls, ms_per_call: round(total / calls, 3), latency_ms: summarize(ms) };
}

// ---------------------------------------------------------------------------------------------
// CPU of the service's process tree

function readStat(pid: number): { ppid: number; comm: string; cpu: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime + stime, and cutime + cstime: children it has reaped (PostgreSQL backends that ended).
    return { ppid: Number(f[1]), comm, cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100 };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds so far of `root` and its descendants, grouped: `service` (the node process: API,
 * worker, chDB), `temporal` (the dev server), `postgres` (postmaster and backends), `other`.
 * A descendant that exited counts in its parent's (reaped children's time).
 */
function treeCpu(root: number, extraTemporal: number[] = []): Record<'service' | 'temporal' | 'postgres' | 'other', number> {
  const stats = new Map<number, { ppid: number; comm: string; cpu: number }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(Number(name));
    if (s) stats.set(Number(name), s);
  }
  const children = new Map<number, number[]>();
  for (const [pid, s] of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  const out = { service: 0, temporal: 0, postgres: 0, other: 0 };
  const stack = [root, ...extraTemporal];
  while (stack.length) {
    const pid = stack.pop()!;
    const s = stats.get(pid);
    if (!s) continue;
    const group = pid === root ? 'service' : s.comm.startsWith('temporal') ? 'temporal' : s.comm.startsWith('postgres') ? 'postgres' : 'other';
    out[group] += s.cpu;
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** The service tree's CPU, the service's threads, this process's CPU and everyone else's over a phase. */
function treeMeter(root: number, extraTemporal: number[] = []) {
  const t0 = performance.now();
  const tree0 = treeCpu(root, extraTemporal);
  const threads0 = threadCpuSeconds(root);
  const busy0 = machineBusySeconds();
  const client0 = process.cpuUsage();
  return (cases: number) => {
    const s = (performance.now() - t0) / 1000;
    const tree1 = treeCpu(root, extraTemporal);
    const threads1 = threadCpuSeconds(root);
    const c = process.cpuUsage(client0);
    const client = (c.user + c.system) / 1e6;
    const d = Object.fromEntries(Object.entries(tree1).map(([k, v]) => [k, v - tree0[k as keyof typeof tree0]])) as typeof tree1;
    const total = d.service + d.temporal + d.postgres + d.other;
    const other = Math.max(0, machineBusySeconds() - busy0 - total - client);
    const perCase = (sec: number) => round((sec * 1000) / cases, 2);
    // The service's threads, by name, largest first (chDB's are ThreadPool, MergeMutate, ...).
    const threads = Object.entries(threads1)
      .map(([k, v]) => [k, v - (threads0[k] ?? 0)] as const)
      .filter(([, v]) => v >= 0.01)
      .sort((a, b) => b[1] - a[1]);
    return {
      cpu_ms_per_case: {
        total: perCase(total),
        service: perCase(d.service),
        temporal: perCase(d.temporal),
        postgres: perCase(d.postgres),
        other_children: perCase(d.other),
      },
      service_threads_cpu_ms_per_case: Object.fromEntries(threads.map(([k, v]) => [k, perCase(v)])),
      service_tree_cpu_cores: round(total / s),
      /** This process: the agent, the direct calls, the polling. */
      client_cpu_ms_per_case: perCase(client),
      client_cpu_cores: round(client / s),
      other_processes_cpu_cores: round(other / s),
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Runs

interface RunBody {
  id: string;
  status: string;
  summary: { total_cases: number; passed: number; failed: number; cancelled: number; avg_score: number; duration_ms: number } | null;
  progress?: { completed: number; total: number };
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
}

/** Starts a run of `cases` cases and polls it every `pollMs` until it is final; checks it. */
async function timedRun(svc: BenchService, agent: FastAgent, agentId: string, cases: number, config: Record<string, unknown>, pollMs: number, label: string) {
  const items = Array.from({ length: cases }, (_, i) => item(i));
  const m = treeMeter(svc.child.pid!, externalTemporalPids());
  const t0 = performance.now();
  const created = await benchApi<{ id: string }>(
    svc,
    'POST',
    '/api/runs',
    { agentId, agentVersion: label, dataset: { items }, scorers: ['contains'], config },
    202,
  );
  const postMs = performance.now() - t0;
  let run: RunBody;
  const pollLatency: number[] = [];
  let lastLog = performance.now();
  for (;;) {
    const tp = performance.now();
    const res = await getJson(`${svc.apiUrl}/api/runs/${created.id}`, { 'x-project-id': svc.projectId });
    pollLatency.push(performance.now() - tp);
    if (res.status !== 200) throw new Error(`GET /api/runs/${created.id}: ${res.status} ${JSON.stringify(res.body)}`);
    run = res.body as RunBody;
    if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') break;
    if (performance.now() - lastLog > 5000) {
      lastLog = performance.now();
      console.log(JSON.stringify({ phase: `eval-runs-${label}-progress`, completed: run.progress?.completed, of: cases, s: round((lastLog - t0) / 1000, 1) }));
    }
    if (performance.now() - t0 > 30 * 60_000) throw new Error(`run ${created.id} not final after 30 minutes: ${run.status}`);
    await sleep(pollMs);
  }
  const wallMs = performance.now() - t0;
  const cpu = m(cases);

  // Correctness: every case ran once, passed, and the summary counts them all.
  const problems: string[] = [];
  if (run.status !== 'completed') problems.push(`status ${run.status} (${run.error})`);
  if (run.summary?.total_cases !== cases) problems.push(`summary.total_cases ${run.summary?.total_cases} != ${cases}`);
  if (run.summary?.passed !== cases)
    problems.push(`summary.passed ${run.summary?.passed} != ${cases} (failed ${run.summary?.failed}, cancelled ${run.summary?.cancelled})`);
  const status = await benchApi<{ progress: { completed: number; total: number } }>(svc, 'GET', `/api/runs/${created.id}/status`);
  if (status.progress.completed !== cases || status.progress.total !== cases) problems.push(`progress ${JSON.stringify(status.progress)}`);
  const results = (
    await benchApi<{ results: Array<{ status: string; trials: Array<{ duration_ms?: number; latency_ms?: number | null }> }> }>(
      svc,
      'GET',
      `/api/runs/${created.id}/results`,
    )
  ).results;
  if (results.length !== cases || results.some((r) => r.status !== 'passed'))
    problems.push(`results: ${results.length}, not passed: ${results.filter((r) => r.status !== 'passed').length}`);
  const agentCalls = agent.calls.get(created.id) ?? 0;
  if (agentCalls !== cases) problems.push(`agent called ${agentCalls} times for ${cases} cases`);
  if (problems.length) throw new Error(`run ${created.id} (${label}) is wrong: ${problems.join('; ')}`);

  const runMs = Date.parse(run.completed_at!) - Date.parse(run.started_at!);
  const trials = results.flatMap((r) => r.trials);
  const latency = trials.map((t) => t.latency_ms).filter((v): v is number => typeof v === 'number');
  const duration = trials.map((t) => t.duration_ms).filter((v): v is number => typeof v === 'number');
  return {
    run_id: created.id,
    cases,
    config,
    post_ms: round(postMs, 1),
    wall_s: round(wallMs / 1000, 2),
    /** The run's own started_at -> completed_at (the first workflow activity to finishRun). */
    run_s: round(runMs / 1000, 2),
    /** POST answered -> the run marked running (workflow start, first workflow task, markRun). */
    created_to_started_ms: Date.parse(run.started_at!) - Date.parse(run.created_at),
    cases_per_s: round(cases / (wallMs / 1000), 2),
    cases_per_s_run: round(cases / (runMs / 1000), 2),
    ms_per_case: round(wallMs / cases, 2),
    ms_per_case_run: round(runMs / cases, 2),
    /** Per case as the worker recorded it: the agent call (latency) and the case workflow's call + score (duration). */
    worker_agent_call_ms_median: latency.length ? median(latency) : null,
    worker_call_and_score_ms_median: duration.length ? median(duration) : null,
    polls: pollLatency.length,
    poll_ms: summarize(pollLatency),
    ...cpu,
  };
}

/** A dev server given to the service as TEMPORAL_ADDRESS (not its child): its pids, found by `--port` on its command line. */
function externalTemporalPids(): number[] {
  const port = serviceEnv.TEMPORAL_ADDRESS?.split(':').at(-1);
  if (!port) return [];
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (args.includes('start-dev') && args[args.indexOf('--port') + 1] === port) pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}

/**
 * The workflow engine's address: TEMPORAL_ADDRESS when the service was given one (`--service-env`),
 * else the embedded dev server's from the service's log (`embedded Temporal dev server started`).
 */
function temporalAddress(svc: BenchService): string | undefined {
  if (serviceEnv.TEMPORAL_ADDRESS) return serviceEnv.TEMPORAL_ADDRESS;
  for (const line of svc.output().split('\n')) {
    if (!line.includes('embedded Temporal dev server started')) continue;
    try {
      return `127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
    } catch {
      // not a JSON line
    }
  }
  return undefined;
}

export async function benchEvalRuns(opts: EvalRunsBenchOptions) {
  const agent = await startFastAgent();
  const svc = await startBenchService();
  try {
    const address = temporalAddress(svc);
    const created = await benchApi<{ id: string }>(svc, 'POST', '/api/agents', { name: 'bench-fast-agent', endpoint: agent.url }, 201);
    // Warm-up (not measured): JIT, the worker's workflow isolates, the connections of every pool.
    const warmT = performance.now();
    await timedRun(svc, agent, created.id, opts.warmupCases, { parallel: true }, opts.pollMs, 'warmup');
    const warmupS = round((performance.now() - warmT) / 1000, 2);

    const d = await direct(agent.url, opts.cases, opts.directWarmup);
    console.log(JSON.stringify({ phase: 'eval-runs-direct', ...d }));

    const sequential = await timedRun(svc, agent, created.id, opts.cases, { parallel: false }, opts.pollMs, 'sequential');
    const seqOverhead = round(sequential.ms_per_case - d.ms_per_call, 2);
    console.log(JSON.stringify({ phase: 'eval-runs-sequential', overhead_ms_per_case: seqOverhead, ...sequential }));

    const parallelConfig = opts.concurrency === undefined ? { parallel: true } : { parallel: true, concurrency: opts.concurrency };
    const parallel = await timedRun(svc, agent, created.id, opts.cases, parallelConfig, opts.pollMs, 'parallel');
    console.log(JSON.stringify({ phase: 'eval-runs-parallel', ...parallel }));

    // Not timed: the runs' Temporal histories, read back after both runs.
    const timeline = async (runId: string, seq: boolean) =>
      address
        ? caseTimeline(address, runId, opts.cases, seq).catch((err: Error) => ({ error: err.message }))
        : { error: 'no Temporal address in the service log' };
    const seqTimeline = await timeline(sequential.run_id, true);
    const parTimeline = await timeline(parallel.run_id, false);
    console.log(JSON.stringify({ phase: 'eval-runs-timeline', sequential: seqTimeline, parallel: parTimeline }));

    return {
      cases: opts.cases,
      concurrency: opts.concurrency ?? 'service default (EVAL_MAX_CONCURRENCY, 10)',
      poll_every_ms: opts.pollMs,
      warmup: { cases: opts.warmupCases, s: warmupS },
      direct: d,
      sequential: { ...sequential, overhead_ms_per_case: seqOverhead, overhead_ms_per_case_run: round(sequential.ms_per_case_run - d.ms_per_call, 2) },
      parallel,
      parallel_over_sequential: round(parallel.cases_per_s / sequential.cases_per_s, 2),
      /** This run against the targets (the medians are in docs/benchmarks.md). */
      targets_this_run: {
        sequential_overhead_ms_per_case_max: 50,
        sequential_overhead_met: seqOverhead <= 50,
        parallel_cases_per_s_min: 20,
        parallel_met: parallel.cases_per_s >= 20,
      },
      timeline: { sequential: seqTimeline, parallel: parTimeline },
    };
  } finally {
    await svc.stop();
    await agent.close();
  }
}
