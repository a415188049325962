import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeProviderEnv, startFakeProvider } from '../test/helpers/fake-providers.js';
import { cpuSeconds, median, round, sleep, summarize } from './lib.js';
import { benchApi, startBenchService, type BenchService } from './service.js';

/**
 * Issue 30, "Measure": multi-turn evaluation on the real service (Temporal dev server, embedded
 * PostgreSQL, chDB), an agent with memory over HTTP and the simulated user played by a local
 * server speaking OpenAI's wire protocol (it never ends the conversation, so each one runs to
 * `max_turns`). Both answer at once and time their own work:
 *  (a) one simulated conversation of `turns` turns: wall time from the POST to the run seen
 *      completed, and the overhead per turn beyond the agent's and the simulator's own time;
 *  (b) `parallel` simulated conversations of `parallelTurns` turns at once (config.parallel with
 *      concurrency `parallel`, EVAL_MAX_CONCURRENCY raised to match): wall time, turns/s.
 * Each run is checked: completed, every conversation has its turns, the agent was called once per
 * turn. Run: `npm run bench -- conversations [--quick] [--runs N]`.
 */
export interface ConversationsBenchOptions {
  turns: number;
  parallel: number;
  parallelTurns: number;
  pollMs: number;
}

interface TimedServer {
  url: string;
  /** Agent calls per run id and case name, and the handlers' own time. */
  calls: Map<string, number>;
  ownMs: number;
  close(): Promise<void>;
}

/** The agent: remembers how many user messages it has seen (the messages history) and says so. */
async function startAgent(): Promise<TimedServer> {
  const calls = new Map<string, number>();
  const state = { ownMs: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const t = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { run_id: string; case: { name: string }; messages: Array<{ role: string }> };
      const key = `${body.run_id}/${body.case.name}`;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      const seen = body.messages.filter((m) => m.role === 'user').length;
      const answer = JSON.stringify({
        output: `You have asked ${seen} questions so far. Here is the next step.`,
        usage: { input_tokens: 40 * seen, output_tokens: 12 },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
      state.ownMs += performance.now() - t;
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`,
    calls,
    get ownMs() {
      return state.ownMs;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const simulation = (turns: number) => ({
  persona: 'Noa, a developer planning a migration, who asks one thing at a time.',
  goal: 'Get a step-by-step plan for moving a service from PostgreSQL 14 to 18.',
  facts: ['The database is 2 TB.', 'Downtime must stay under 10 minutes.'],
  max_turns: turns,
  first_message: 'Hi! I need to plan a PostgreSQL upgrade.',
  model: 'gpt-5.4',
  seed: 1,
});

interface Result {
  case_name: string;
  status: string;
  trials: Array<{ duration_ms?: number; turns?: unknown[]; conversation?: { ended: string | null; turns_done: number } | null }>;
}

/** One run of `cases` simulated conversations of `turns` turns; polled until final and checked. */
async function timedRun(
  svc: BenchService,
  agent: TimedServer,
  simMs: () => number,
  cases: number,
  turns: number,
  config: Record<string, unknown>,
  pollMs: number,
) {
  const items = Array.from({ length: cases }, (_, i) => ({ name: `conversation-${i}`, simulation: simulation(turns) }));
  const agentMs0 = agent.ownMs;
  const simMs0 = simMs();
  const cpu0 = cpuSeconds(svc.child.pid!);
  const t0 = performance.now();
  const created = await benchApi<{ id: string }>(
    svc,
    'POST',
    '/api/runs',
    { agentId: 'bench-memory-agent', dataset: { items }, scorers: ['turnScores'], config },
    202,
  );
  for (;;) {
    const run = await benchApi<{ status: string; error?: string }>(svc, 'GET', `/api/runs/${created.id}`);
    if (run.status === 'completed') break;
    if (run.status === 'failed' || run.status === 'cancelled') throw new Error(`run ${created.id}: ${run.status} ${run.error ?? ''}`);
    if (performance.now() - t0 > 30 * 60_000) throw new Error(`run ${created.id} not final after 30 minutes`);
    await sleep(pollMs);
  }
  const wallMs = performance.now() - t0;
  const cpuS = cpuSeconds(svc.child.pid!) - cpu0;
  const { results } = await benchApi<{ results: Result[] }>(svc, 'GET', `/api/runs/${created.id}/results`);
  const problems: string[] = [];
  for (const r of results) {
    const trial = r.trials[0];
    if (trial?.turns?.length !== turns) problems.push(`${r.case_name}: ${trial?.turns?.length} turns (${trial?.conversation?.ended})`);
    const calls = agent.calls.get(`${created.id}/${r.case_name}`);
    if (calls !== turns) problems.push(`${r.case_name}: agent called ${calls} times`);
  }
  if (results.length !== cases) problems.push(`${results.length} results`);
  if (problems.length) throw new Error(`run ${created.id} is wrong: ${problems.slice(0, 5).join('; ')}`);
  const ownMs = agent.ownMs - agentMs0 + (simMs() - simMs0);
  const conversationMs = results.map((r) => r.trials[0].duration_ms ?? 0);
  return { wallMs, cpuS, ownMs, conversationMs };
}

export async function benchConversations(opts: ConversationsBenchOptions) {
  const agent = await startAgent();
  const openai = await startFakeProvider('openai');
  let simOwnMs = 0;
  let simCalls = 0;
  openai.setDefault(() => {
    const t = performance.now();
    simCalls++;
    const answer = { verdict: { message: `Thanks. And what about step ${simCalls}? Keep it short.`, status: 'continue' }, usage: { input: 300, output: 14 } };
    simOwnMs += performance.now() - t;
    return answer;
  });
  const svc = await startBenchService({ ...fakeProviderEnv({ openai }), EVAL_MAX_CONCURRENCY: String(Math.max(10, opts.parallel)) });
  try {
    await benchApi(svc, 'POST', '/api/agents', { name: 'bench-memory-agent', endpoint: agent.url }, 201);
    // Warm-up: a short conversation, so the first measured turn is not the worker's first.
    await timedRun(svc, agent, () => simOwnMs, 1, 3, {}, opts.pollMs);

    const long = await timedRun(svc, agent, () => simOwnMs, 1, opts.turns, {}, opts.pollMs);
    const par = await timedRun(svc, agent, () => simOwnMs, opts.parallel, opts.parallelTurns, { parallel: true, concurrency: opts.parallel }, opts.pollMs);
    const totalTurns = opts.parallel * opts.parallelTurns;
    return {
      phase: 'conversations',
      long: {
        turns: opts.turns,
        wall_s: round(long.wallMs / 1000, 2),
        agent_and_simulator_own_ms: round(long.ownMs, 1),
        overhead_ms_per_turn: round((long.wallMs - long.ownMs) / opts.turns, 1),
        service_cpu_ms_per_turn: round((long.cpuS * 1000) / opts.turns, 1),
      },
      parallel: {
        conversations: opts.parallel,
        turns_each: opts.parallelTurns,
        wall_s: round(par.wallMs / 1000, 2),
        turns_per_s: round(totalTurns / (par.wallMs / 1000), 1),
        conversation_ms: summarize(par.conversationMs),
        conversation_ms_median: round(median(par.conversationMs), 0),
        service_cpu_ms_per_turn: round((par.cpuS * 1000) / totalTurns, 1),
      },
    };
  } finally {
    await svc.stop();
    await agent.close();
    await openai.close();
  }
}
