import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { clickhouseMigrationTarget } from '../../core/store/clickhouse/migration-target.js';
import { migrate, readMigrations } from '../../core/store/migrations.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { JSON_ROWS } from '../../core/store/clickhouse/rows.js';

// A store written by the previous release (migration 001 only: spans, trace_headers, and the
// derived traces table) is upgraded in place: migration 002 backfills trace_stats from the
// stored rows, so every existing trace keeps its summary.
let ch: ClickHouse;

beforeAll(async () => {
  ch = await connectClickHouse({ dataDir: makeDataDir() });
});
afterAll(async () => {
  await ch?.close();
});

const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

describe('migration 002 on a store of the previous release', () => {
  it('backfills trace summaries from the stored spans and headers, and drops the replaced tables', async () => {
    const target = clickhouseMigrationTarget(ch.client);
    await target.applied();
    const [first] = readMigrations('clickhouse');
    expect(first.id).toBe('001_spans_traces_scores');
    await target.apply(first);

    const span = (id: string, parent: string, type: string, offsetMs: number, extra: Record<string, unknown> = {}) => ({
      project_id: 'p',
      trace_id: 'old',
      span_id: id,
      parent_span_id: parent,
      name: `op-${id}`,
      span_type: type,
      component_type: '',
      convention: 'genai',
      kind: '',
      status: 'ok',
      status_message: '',
      start_time: `${day} 10:00:00.${String(offsetMs).padStart(3, '0')}`,
      end_time: `${day} 10:00:01.000`,
      duration_ms: 10,
      model: '',
      input: '',
      output: '',
      input_tokens: type === 'generation' ? 100 : 0,
      output_tokens: type === 'generation' ? 10 : 0,
      attributes: {},
      resource_attributes: { 'service.name': 'legacy' },
      scope_name: '',
      scope_version: '',
      events: '[]',
      ...extra,
    });
    const rows = [
      span('root', '', 'span', 0),
      span('llm', 'root', 'generation', 100),
      span('llm', 'root', 'generation', 100),
      span('tool', 'root', 'tool', 200, { status: 'error' }),
    ];
    await ch.insertRows('agent_eval.spans', JSON_ROWS, Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n')));
    const header = {
      project_id: 'p',
      trace_id: 'old',
      name: 'checkout',
      status: 'ok',
      start_time: `${day} 09:59:59.000`,
      duration_ms: 3000,
      attributes: { user: 'u1' },
    };
    await ch.insertRows('agent_eval.trace_headers', JSON_ROWS, Buffer.from(JSON.stringify(header)));

    expect(await migrate(target, createLogger('silent'))).toEqual(
      readMigrations('clickhouse')
        .slice(1)
        .map((m) => m.id),
    );

    const trace = await createAnalyticsStore(ch).getTrace('p', 'old');
    expect(trace).toMatchObject({
      name: 'checkout',
      status: 'error',
      start_time: `${day}T09:59:59.000Z`,
      duration_ms: 3000,
      span_count: 3,
      error_count: 1,
      llm_call_count: 1,
      tool_call_count: 1,
      total_input_tokens: 100,
      total_output_tokens: 10,
      attributes: { 'service.name': 'legacy', user: 'u1' },
    });
    const tables = await (
      await ch.client.query({ query: "SELECT name FROM system.tables WHERE database = 'agent_eval' ORDER BY name", format: 'JSONEachRow' })
    ).json<{ name: string }>();
    expect(tables.map((t) => t.name)).toEqual([
      'schema_migrations',
      'scores',
      'spans',
      'spans_from_writes',
      'trace_stats',
      'trace_stats_fold_writes',
      'trace_stats_from_input',
      'trace_stats_input',
      'write_rows',
    ]);
  });
});
