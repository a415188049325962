import { startFakeProvider, fakeProviderEnv } from '../test/helpers/fake-providers.js';
import { closedLoop } from './load.js';
import { agentTrace, getJson, meter, percentile, round, sleep, spanSize } from './lib.js';
import { jsonSender, type Job } from './senders.js';
import { benchApi, startBenchService, type BenchService } from './service.js';

/**
 * Issue 12: online evaluation of production traces (docs/online-evals.md). Against one fresh
 * service per run (all roles, the online evaluator at its defaults unless `--service-env` says
 * otherwise) and a local OpenAI stand-in that answers every judge call at once:
 *   (a) rule scorers: `backlogTraces` traces are stored, then a rule (sample_rate 1, five rule
 *       scorers) is created over them: traces scored per second until all are;
 *   (b) judge: the same for `judgeTraces` traces and one LLM judge (helpfulness_judge);
 *   (c) lag under ingest: the ingest bench's load (JSON ingest, `clients` closed-loop clients,
 *       10-span traces of ~2 KB spans) for `loadSeconds`, first with no rule (baseline), then
 *       with a rule scoring every trace (`delaySeconds`): ingest throughput in both, the rule's
 *       scored traces per second, its lag (GET /api/evals/online-rules/{id} every second), and
 *       how long after the load it caught up.
 * Run: `npm run bench -- online-evals [--traces N] [--seconds S] [--concurrency N] [--runs N] [--quick]`.
 */
export interface OnlineEvalsBenchOptions {
  backlogTraces: number;
  judgeTraces: number;
  loadSeconds: number;
  clients: number;
  spansPerTrace: number;
  delaySeconds: number;
}

const RULE_SCORERS = ['contains', 'regex', 'latency', 'tokenEfficiency', 'toolSelection'];
const EXPECTED = { outputContains: ['the'], regex: ['agent'], maxLatencyMs: 60_000, maxTokens: 1_000_000, toolCalls: ['search'] };

/** Traces that end as they are sent (an agent posting its trace on completion), one id each. */
function freshSource(prefix: string, spans: number): () => Job {
  const size = spanSize('2k');
  let seq = 0;
  return () => {
    const n = seq++;
    const id = `${prefix}-${n.toString(16).padStart(8, '0')}`;
    const body = agentTrace(id, spans, Date.now() - spans * 100, n, size);
    return { body: JSON.stringify(body), spans, traces: [{ id, spans }] };
  };
}

interface RuleView {
  id: string;
  stats: { scored: number; skipped_by_sampling: number; errors: number; pending: number; lag_seconds: number; judge_tokens: number };
}

async function rule(svc: BenchService, id: string): Promise<RuleView> {
  const res = await getJson(`${svc.apiUrl}/api/evals/online-rules/${id}`, svc.headers);
  if (res.status !== 200) throw new Error(`GET rule ${id}: ${res.status}`);
  return res.body as RuleView;
}

/** Stores `traces` traces as fast as the clients can (not measured). */
async function fill(svc: BenchService, prefix: string, traces: number, opts: OnlineEvalsBenchOptions) {
  const run = await closedLoop(jsonSender(svc.apiUrl, svc.projectId, svc.headers), freshSource(prefix, opts.spansPerTrace), {
    clients: opts.clients,
    seconds: 3600,
    maxSpans: traces * opts.spansPerTrace,
  });
  if (run.failed > 0) throw new Error(`${run.failed} ingest requests failed`);
  return run.acked.traces;
}

/** A rule over the traces stored since `since`, timed until every one of them is scored. */
async function backlog(svc: BenchService, label: string, traces: number, scorers: unknown[], since: string, timeoutS: number) {
  const m = meter(svc.child.pid!);
  const t0 = performance.now();
  const created = await benchApi<RuleView>(svc, 'POST', '/api/evals/online-rules', { name: label, scorers, expected: EXPECTED, delay_seconds: 0, since }, 201);
  let r = created;
  while (r.stats.scored < traces || r.stats.pending > 0) {
    if (performance.now() - t0 > timeoutS * 1000) throw new Error(`${label}: ${r.stats.scored} of ${traces} scored after ${timeoutS} s`);
    await sleep(200);
    r = await rule(svc, created.id);
  }
  const s = (performance.now() - t0) / 1000;
  const cpu = m.read();
  m.stop();
  if (r.stats.scored !== traces) throw new Error(`${label}: scored ${r.stats.scored}, expected ${traces}`);
  await benchApi(svc, 'DELETE', `/api/evals/online-rules/${created.id}`, undefined, 204);
  return {
    traces,
    scorers: scorers.length,
    seconds: round(s, 1),
    traces_per_s: round(traces / s, 1),
    errors: r.stats.errors,
    judge_tokens: r.stats.judge_tokens,
    server_cpu_cores: cpu.server_cpu_cores,
    server_cpu_ms_per_trace: round((cpu.server_cpu_s * 1000) / traces, 2),
    client_cpu_cores: cpu.client_cpu_cores,
    other_processes_cpu_cores: cpu.other_processes_cpu_cores,
  };
}

/** The ingest load for `seconds`, optionally watching a rule every second. */
async function load(svc: BenchService, prefix: string, opts: OnlineEvalsBenchOptions, ruleId?: string) {
  const m = meter(svc.child.pid!);
  const samples: Array<{ t: number; lag: number; scored: number; pending: number }> = [];
  let loading = true;
  const t0 = performance.now();
  const watch = (async () => {
    while (ruleId && loading) {
      await sleep(1000);
      const r = await rule(svc, ruleId).catch(() => undefined);
      if (r) samples.push({ t: (performance.now() - t0) / 1000, lag: r.stats.lag_seconds, scored: r.stats.scored, pending: r.stats.pending });
    }
  })();
  const run = await closedLoop(jsonSender(svc.apiUrl, svc.projectId, svc.headers), freshSource(prefix, opts.spansPerTrace), {
    clients: opts.clients,
    seconds: opts.loadSeconds,
  });
  const cpu = m.read(run.acked.spans);
  loading = false;
  await watch;
  m.stop();
  return { run, samples, cpu };
}

export async function benchOnlineEvals(opts: OnlineEvalsBenchOptions) {
  const judge = await startFakeProvider('openai');
  const svc = await startBenchService(fakeProviderEnv({ openai: judge }));
  try {
    // (a) rule scorers over a stored backlog.
    const sinceA = new Date(Date.now() - 1000).toISOString();
    // Clients in flight when the target is reached still land: the stored count is what the rule must score.
    const stored = await fill(svc, 'rules', opts.backlogTraces, opts);
    const rules = await backlog(svc, 'bench rules', stored, RULE_SCORERS, sinceA, 1800);
    console.log(JSON.stringify({ phase: 'online-evals-rule-scorers', ...rules }));

    // (b) one LLM judge (a local server answering at once).
    await sleep(1000);
    const sinceB = new Date().toISOString();
    const storedB = await fill(svc, 'judged', opts.judgeTraces, opts);
    const requests0 = judge.requests.length;
    const judged = await backlog(svc, 'bench judge', storedB, ['helpfulness_judge'], sinceB, 1800);
    const judgeCalls = judge.requests.length - requests0;
    console.log(JSON.stringify({ phase: 'online-evals-judge', ...judged, judge_calls: judgeCalls }));

    // (c) the ingest load without a rule, then with one scoring every trace.
    const baseline = await load(svc, 'baseline', opts);
    const base = {
      traces_per_s: round(baseline.run.acked.traces / baseline.run.seconds, 1),
      spans_per_s: Math.round(baseline.run.acked.spans / baseline.run.seconds),
      server_cpu_cores: baseline.cpu.server_cpu_cores,
      other_processes_cpu_cores: baseline.cpu.other_processes_cpu_cores,
    };
    console.log(JSON.stringify({ phase: 'online-evals-baseline-ingest', ...base }));

    const created = await benchApi<RuleView>(
      svc,
      'POST',
      '/api/evals/online-rules',
      { name: 'bench live', scorers: RULE_SCORERS, expected: EXPECTED, delay_seconds: opts.delaySeconds },
      201,
    );
    const live = await load(svc, 'live', opts, created.id);
    const loadEnd = performance.now();
    const acked = live.run.acked.traces;
    let r = await rule(svc, created.id);
    while (r.stats.scored < acked || r.stats.pending > 0) {
      if (performance.now() - loadEnd > 600_000) throw new Error(`live rule: ${r.stats.scored} of ${acked} scored 10 minutes after the load`);
      await sleep(250);
      r = await rule(svc, created.id);
    }
    const caughtUpS = (performance.now() - loadEnd) / 1000;
    if (r.stats.scored !== acked) throw new Error(`live rule scored ${r.stats.scored} of ${acked} acknowledged traces`);
    const lags = live.samples.map((s) => s.lag).sort((a, b) => a - b);
    // Scored per second while the load ran, past the first delay (before it nothing can be scored).
    const during = live.samples.filter((s) => s.t >= opts.delaySeconds + 2);
    const scoredRate = during.length >= 2 ? (during.at(-1)!.scored - during[0].scored) / (during.at(-1)!.t - during[0].t) : null;
    const withRule = {
      traces_per_s: round(acked / live.run.seconds, 1),
      spans_per_s: Math.round(live.run.acked.spans / live.run.seconds),
      ingest_change_vs_baseline_pct: round((acked / live.run.seconds / (baseline.run.acked.traces / baseline.run.seconds) - 1) * 100, 1),
      scored_per_s_during_load: scoredRate === null ? null : round(scoredRate, 1),
      delay_seconds: opts.delaySeconds,
      lag_s: { p50: round(percentile(lags, 50), 1), p95: round(percentile(lags, 95), 1), max: round(lags.at(-1) ?? NaN, 1), samples: lags.length },
      lag_beyond_delay_p95_s: round(Math.max(0, percentile(lags, 95) - opts.delaySeconds), 1),
      pending_max: Math.max(0, ...live.samples.map((s) => s.pending)),
      caught_up_after_load_s: round(caughtUpS, 1),
      scored: r.stats.scored,
      server_cpu_cores: live.cpu.server_cpu_cores,
      other_processes_cpu_cores: live.cpu.other_processes_cpu_cores,
    };
    console.log(JSON.stringify({ phase: 'online-evals-under-load', ...withRule }));

    return {
      clients: opts.clients,
      spans_per_trace: opts.spansPerTrace,
      rule_scorers: rules,
      judge: { ...judged, judge_calls: judgeCalls },
      ingest_baseline: base,
      ingest_with_rule: withRule,
    };
  } finally {
    await svc.stop();
    await judge.close();
  }
}
