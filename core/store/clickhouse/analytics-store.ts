import { randomUUID } from 'node:crypto';
import type { CreateScore, Score } from '../../model/score.js';
import { DEFAULT_SPANS_PAGE } from '../../model/span-page.js';
import type { AnalyticsStore } from '../analytics.js';
import type { Logger } from '../../logger.js';
import { createBatchWriter } from './batch-writer.js';
import { selectRows, type ClickHouse } from './client.js';
import { createTraceReads } from './trace-reads.js';
import { createAnalyticsReads } from './analytics-reads.js';
import { createCostReads } from './cost-reads.js';
import { createCalibrationReads } from './calibration-reads.js';
import { createAlertMetrics } from './alert-metrics.js';
import { createOnlineTraceReads } from './online-trace-reads.js';
import { createTraceErasure } from './trace-erasure.js';
import { createExportReads } from './export-reads.js';
import { createSessionReads } from './trace-session-reads.js';
import { listPromptTraces } from './prompt-links.js';
import { scoreRow, scoreView, spanView, type ScoreRow, type SpanRow } from './rows.js';
import { GET_SPAN } from './trace-sql.js';
import { readSpanPage } from './span-page.js';

/** ClickHouse implementation of the analytical store; every read goes through `rows()`. */
export interface AnalyticsStoreOptions {
  logger?: Logger;
  /** CLICKHOUSE_CLUSTER: deletions run ON CLUSTER and wait for every replica. */
  cluster?: string;
}

export function createAnalyticsStore(ch: ClickHouse, options: AnalyticsStoreOptions = {}): AnalyticsStore {
  const { logger, cluster } = options;
  const client = ch.client;
  const rows = <T>(query: string, params: Record<string, unknown>) => selectRows<T>(client, query, params);
  const traces = createTraceReads(rows);

  /** Scores keep their ids: writing the same score again (a retried activity) reads back once. */
  async function writeScores(projectId: string, scores: Score[]): Promise<void> {
    if (scores.length === 0) return;
    await client.insert({
      table: 'agent_eval.scores',
      values: scores.map((score) => scoreRow(projectId, score)),
      format: 'JSONEachRow',
    });
  }

  return {
    writeRows: createBatchWriter(ch, { logger }).writeRows,
    listTraces: traces.listTraces,
    listPromptTraces: (projectId, query) => listPromptTraces(rows, projectId, query),

    async getTrace(projectId, traceId, page = { limit: DEFAULT_SPANS_PAGE }) {
      // The summary first (chDB runs one statement at a time per connection either way): an unknown
      // trace reads no spans, and a trace that fits in the page has its spans read in one pass.
      const [trace] = await traces.summaries(projectId, [traceId]);
      if (!trace) return null;
      const spans = await readSpanPage(rows, projectId, traceId, page, trace.span_count);
      return { ...trace, spans: spans.spans, spans_next_cursor: spans.nextCursor };
    },

    async getSpan(projectId, spanId) {
      const [row] = await rows<SpanRow>(GET_SPAN, { project: projectId, span: spanId });
      return row ? spanView(row) : null;
    },

    async insertScore(projectId, input: CreateScore): Promise<Score> {
      const score: Score = {
        id: input.id ?? randomUUID(),
        trace_id: input.trace_id,
        span_id: input.span_id ?? null,
        name: input.name,
        value: input.value,
        score_type: input.score_type,
        source: input.source,
        scorer_name: input.scorer_name ?? null,
        reason: input.reason ?? null,
        evidence: input.evidence,
        created_at: new Date().toISOString(),
      };
      await writeScores(projectId, [score]);
      return score;
    },

    writeScores,

    async findScore(projectId, id) {
      const [row] = await rows<ScoreRow>(
        `SELECT score_id, trace_id, span_id, name, value, score_type, source, scorer_name, reason, evidence, created_at, attributes, session_id
         FROM agent_eval.scores
         WHERE project_id = {project:String} AND score_id = {id:String}
         ORDER BY created_at
         LIMIT 1`,
        { project: projectId, id },
      );
      return row ? scoreView(row) : null;
    },

    aggregates: createAnalyticsReads(client),
    costs: createCostReads(client),
    calibration: createCalibrationReads(client),
    alerts: createAlertMetrics(client),
    online: createOnlineTraceReads(client),
    sessions: createSessionReads(rows, traces.summaries),
    erasure: createTraceErasure(client, { cluster }),
    exports: createExportReads(ch),

    async listScores(projectId, traceId) {
      const list = await rows<ScoreRow>(
        `SELECT score_id, trace_id, span_id, name, value, score_type, source, scorer_name, reason, evidence, created_at, attributes, session_id
         FROM agent_eval.scores
         WHERE project_id = {project:String} AND trace_id = {trace:String}
         ORDER BY created_at DESC
         LIMIT 1 BY score_id`,
        { project: projectId, trace: traceId },
      );
      return list.map(scoreView);
    },

    async ping() {
      const result = await client.ping();
      return result.success;
    },

    close: () => ch.close(),
  };
}
