import { decodeIngestBody } from '../collector/json/ingest-body.js';
import { normalizeSpan } from '../collector/normalize/index.js';
import { loadPriceTable } from '../core/cost/price-table.js';
import { priceSpan } from '../core/cost/span-cost.js';
import { createLogger } from '../core/logger.js';
import { IngestTraceSchema } from '../core/model/ingest-body.js';
import type { RunCase } from '../core/model/eval-run.js';
import { defaultScorerRegistry, runScorers } from '../core/scoring/index.js';
import { encodeRowBatch } from '../core/store/clickhouse/trace-stats-rows.js';
import type { RunForWorker } from '../core/store/runs.js';
import { texts } from '../test/fixtures/corpus/texts.js';
import { openMigratedClickHouse } from '../test/helpers/clickhouse-store.js';
import { spanAt } from '../test/helpers/ingest-trace.js';
import type { CaseRun } from '../workflows/activity-types.js';
import { agentSpanId, caseTraceId } from '../workflows/case-trace.js';
import { scoreInputFor } from '../workflows/judge-activity.js';
import { createTrialTraces } from '../workflows/trial-trace.js';
import { median, round } from './lib.js';

/**
 * Issue 29, "Measure", the eval run's side: what reading a case's trace back for its scorers costs
 * (workflows/trial-trace.ts), on a 200-span trace an agent exported into the case's trace (a
 * 40-step agent: per step a model call with the corpus's prompts, a tool call with JSON
 * arguments, a retrieval and a memory span), stored in a migrated chDB as ingest stores it. Timed:
 * one poll of the settle wait (the span count), the trace read (its first 1,000 spans), the
 * scorers' view and the five trajectory scorers on it, and a whole `traceFor` with the settle
 * wait off and with the trace already seen settled (a case's second reader). The settle wait
 * itself is `trace_settle.quiet_ms` (2 s by default) on top, by design. Median of `rounds` rounds
 * of `iterations` each. Run: `npm run bench -- trial-trace-read [--runs N] [--quick]`.
 */
export interface TrialTraceReadOptions {
  iterations: number;
  rounds: number;
}

const STEPS = 40;
const PROJECT = 'bench-project';

const KEY = { runId: 'bench-run', caseIndex: 0, trial: 0 };

/** The agent's 200 spans, in the JSON ingest shape, under the run's agent call span. */
function agentTrace(start: number): Record<string, unknown> {
  const spans: Array<Record<string, unknown>> = [];
  for (let s = 0; s < STEPS; s++) {
    const t = start + s * 100;
    const id = (part: string) => `step-${s}-${part}`.padEnd(16, '0').slice(0, 16);
    const parent = id('root');
    const child = (part: string, at: number, ms: number, fields: { name: string; type: string } & Record<string, unknown>) =>
      spanAt(t, at, ms, { span_id: id(part), parent_span_id: parent, ...fields });
    const args = { from: 'LIS', to: 'NRT', date: `2026-03-${String((s % 28) + 1).padStart(2, '0')}`, passengers: 4 };
    const answer = s === STEPS - 1 ? texts.travelAnswer : `Next: search_flights for leg ${s}`;
    const [llm, tool] = [{ model: 'gpt-4o', input_tokens: 1200, output_tokens: 90 }, { tool_name: 'search_flights' }];
    spans.push(
      spanAt(t, 0, 95, { span_id: parent, parent_span_id: agentSpanId(KEY, 0), name: `agent step ${s + 1}`, type: 'span' }),
      child('llm', 1, 39, { name: 'chat gpt-4o', type: 'generation', input: texts.travelSystemPrompt, output: answer, attributes: llm }),
      child('tool', 41, 29, { name: 'search_flights', type: 'tool', input: JSON.stringify(args), output: texts.searchResults, attributes: tool }),
      child('rag', 71, 9, { name: 'vector search', type: 'retrieval', input: 'refund policy', output: texts.policyRefunds }),
      child('mem', 81, 4, { name: 'remember', type: 'memory', input: '{"seat":"aisle"}' }),
    );
  }
  return { trace_id: caseTraceId(KEY), name: 'trip-planner', status: 'ok', duration_ms: STEPS * 100, start_time: new Date(start).toISOString(), spans };
}

async function timed(iterations: number, fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6 / iterations;
}

export async function benchTrialTraceRead(o: TrialTraceReadOptions) {
  const { ch, store } = await openMigratedClickHouse();
  try {
    const answeredAt = Date.now();
    const start = answeredAt - STEPS * 100 - 50;
    const prices = loadPriceTable();
    const { spans } = decodeIngestBody(IngestTraceSchema.parse(agentTrace(start)));
    const records = spans.map((raw) => {
      const record = normalizeSpan(raw, PROJECT);
      priceSpan(record, prices, answeredAt);
      return record;
    });
    await store.writeRows(encodeRowBatch(records));

    const run = {
      id: KEY.runId,
      project_id: PROJECT,
      agent_id: 'agent',
      agent_name: 'trip-planner',
      agent_version: 'v1',
      status: 'running',
      config: { parallel: false, timeout_ms: 300_000, repetitions: 1 },
      aggregation: 'mean',
      min_score: 0.7,
    } as RunForWorker;
    const scorers = [
      { name: 'toolCalls', config: { calls: [{ name: 'search_flights', args: { from: 'LIS' } }], mode: 'superset', argsMatch: 'subset' } },
      { name: 'steps', config: { maxLlmCalls: 50, maxToolCalls: 50, maxSpans: 250 } },
      { name: 'loops', config: { maxRepeats: 50, maxLlmRepeats: 50 } },
      { name: 'toolErrors', config: {} },
      { name: 'spanMatch', config: { checks: [{ before: { type: 'retrieval' }, after: { type: 'generation', output: { regex: 'Lisbon' } } }] } },
    ];
    const runCase: RunCase = { case_index: 0, name: 'trip', input: texts.travelQuestion, expected: {}, scorers, min_score: null, weight: 1 };
    const caseRun: CaseRun = {
      ...KEY,
      startedAt: start - 20,
      calls: [
        {
          startedAt: start - 10,
          endedAt: answeredAt,
          reply: { output: texts.travelAnswer, tool_calls: [], usage: { input_tokens: 48_000, output_tokens: 3600 } },
        },
      ],
    };
    const logger = createLogger('silent');
    const clock = () => ({ now: Date.now, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)), heartbeat: () => {} });
    const registry = defaultScorerRegistry();
    const traceId = caseTraceId(KEY);

    const off = createTrialTraces({ traces: store, logger, clock });
    const offRun = { ...run, config: { ...run.config, trace_settle: { quiet_ms: 0, max_ms: 0 } } };
    // One settle (2 s quiet) so the second reader finds it settled.
    const seen = createTrialTraces({ traces: store, logger, clock });
    const settleMs = await timed(1, () => seen.traceFor(run, runCase, caseRun, true));
    const trace = await off.traceFor(offRun, runCase, caseRun, true);
    const view = scoreInputFor(runCase, caseRun, trace)!;

    const rounds: Array<Record<string, number>> = [];
    for (let r = 0; r < o.rounds; r++) {
      rounds.push({
        countPollMs: await timed(o.iterations, () => store.getTrace(PROJECT, traceId, { limit: 1 })),
        traceReadMs: await timed(o.iterations, () => store.getTrace(PROJECT, traceId, { limit: 1000 })),
        traceForSettleOffMs: await timed(o.iterations, () => off.traceFor(offRun, runCase, caseRun, true)),
        traceForAlreadySettledMs: await timed(o.iterations, () => seen.traceFor(run, runCase, caseRun, true)),
        // A fresh trace object each time: the tree is built once per case, as in a run.
        fiveTrajectoryScorersMs: await timed(o.iterations, () => runScorers(registry, scorers, { ...view, trace: { ...trace } })),
      });
    }
    const medianOf = (key: string) => round(median(rounds.map((x) => x[key])), 3);
    const scored = await runScorers(registry, scorers, view);
    return {
      spans: trace.spans.length,
      firstSettleMs: round(settleMs, 0),
      countPollMs: medianOf('countPollMs'),
      traceReadMs: medianOf('traceReadMs'),
      traceForSettleOffMs: medianOf('traceForSettleOffMs'),
      traceForAlreadySettledMs: medianOf('traceForAlreadySettledMs'),
      fiveTrajectoryScorersMs: medianOf('fiveTrajectoryScorersMs'),
      scores: Object.fromEntries(Object.entries(scored).map(([name, d]) => [name, d.score])),
    };
  } finally {
    await ch.close();
  }
}
