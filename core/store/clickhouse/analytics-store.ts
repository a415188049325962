import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { CreateScore, Score } from '../../model/score.js';
import type { TraceListQuery } from '../../model/trace.js';
import type { AnalyticsStore } from '../analytics.js';
import { createBatchWriter } from './batch-writer.js';
import {
  scoreView,
  spanView,
  toClickHouseTime,
  traceSummary,
  type ScoreRow,
  type SpanRow,
  type TraceRow,
} from './rows.js';
import { countTracesSql, GET_SPAN, GET_TRACE, GET_TRACE_SPANS, listTracesSql, TRACE_FILTERS } from './trace-sql.js';

/** ClickHouse implementation of the analytical store; every read goes through `rows()`. */
export function createAnalyticsStore(client: ClickHouseClient): AnalyticsStore {
  async function rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await client.query({ query, query_params: params, format: 'JSONEachRow' });
    return rs.json<T>();
  }

  async function listTraces(projectId: string, q: TraceListQuery) {
    const filters = (Object.keys(TRACE_FILTERS) as Array<keyof typeof TRACE_FILTERS>).filter((f) => q[f] !== undefined);
    const params = {
      project: projectId,
      limit: q.limit,
      offset: q.offset,
      status: q.status,
      name: q.name,
      startTime: q.startTime ? toClickHouseTime(q.startTime.getTime()) : undefined,
      endTime: q.endTime ? toClickHouseTime(q.endTime.getTime()) : undefined,
    };
    const page = await rows<TraceRow & { total: string | number }>(listTracesSql(filters), params);
    let total = page.length ? Number(page[0].total) : 0;
    if (page.length === 0 && q.offset > 0) {
      // Past the last page the window count has no row to ride on.
      const [count] = await rows<{ total: string }>(countTracesSql(filters), params);
      total = Number(count?.total ?? 0);
    }
    return { traces: page.map(traceSummary), total, limit: q.limit, offset: q.offset };
  }

  return {
    writeBatch: createBatchWriter(client).writeBatch,
    listTraces,

    async getTrace(projectId, traceId) {
      const params = { project: projectId, trace: traceId };
      const [[trace], spans] = await Promise.all([rows<TraceRow>(GET_TRACE, params), rows<SpanRow>(GET_TRACE_SPANS, params)]);
      if (!trace) return null;
      const views = spans.map(spanView).sort((a, b) => a.start_time.localeCompare(b.start_time) || a.span_id.localeCompare(b.span_id));
      return { ...traceSummary(trace), spans: views };
    },

    async getSpan(projectId, spanId) {
      const [row] = await rows<SpanRow>(GET_SPAN, { project: projectId, span: spanId });
      return row ? spanView(row) : null;
    },

    async insertScore(projectId, input: CreateScore): Promise<Score> {
      const score: Score = {
        id: randomUUID(),
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
      await client.insert({
        table: 'agent_eval.scores',
        values: [
          {
            project_id: projectId,
            score_id: score.id,
            trace_id: score.trace_id,
            span_id: score.span_id ?? '',
            name: score.name,
            value: score.value,
            score_type: score.score_type,
            source: score.source,
            scorer_name: score.scorer_name ?? '',
            reason: score.reason ?? '',
            evidence: score.evidence,
            created_at: toClickHouseTime(Date.parse(score.created_at)),
          },
        ],
        format: 'JSONEachRow',
        });
      return score;
    },

    async listScores(projectId, traceId) {
      const list = await rows<ScoreRow>(
        `SELECT score_id, trace_id, span_id, name, value, score_type, source, scorer_name, reason, evidence, created_at
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

    close: () => client.close(),
  };
}
