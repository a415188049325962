import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CasesAdded } from '../../core/model/dataset.js';
import type { SuiteSummary, SuiteVersion } from '../../core/model/suite.js';
import { texts } from '../fixtures/corpus/texts.js';
import { oneSpanTrace } from '../helpers/server.js';
import { apiCaller, useTestApi } from '../helpers/test-service-hooks.js';
import { parseJson, runCli } from '../cli/run-cli.js';

/**
 * `agent-eval suites add-trace | import | export` (issue 31, docs/cli.md "Datasets from
 * production") against a real service: a trace becomes a case, a CSV file's rows are imported
 * with the bad one listed, and a version comes back as the same bytes the API exports.
 */

const svc = useTestApi();
const { call, ok } = apiCaller(svc);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-datasets-'));
const cli = (args: string[]) =>
  runCli(args, { env: { AGENT_EVAL_URL: svc.apiUrl!, AGENT_EVAL_API_KEY: svc.apiKey!, AGENT_EVAL_CONFIG: path.join(dir, 'none.json'), NO_COLOR: '1' } });

describe('agent-eval suites: datasets', () => {
  it('adds a trace, imports a CSV file and exports the version', async () => {
    const res = await svc.api('/api/traces/ingest', {
      method: 'POST',
      json: oneSpanTrace('cli-ds-1', { input: texts.travelQuestion, output: texts.travelAnswer }),
    });
    expect(res.status).toBe(201);
    const suite = await ok<SuiteSummary>(
      await call('/api/suites', {
        name: 'cli-datasets',
        defaultScorers: ['contains'],
        cases: [{ name: 'seed', input: 'hi', expected: { outputContains: 'hi' } }],
      }),
      201,
    );

    const added = await cli(['suites', 'add-trace', 'cli-datasets', 'cli-ds-1', '--json']);
    expect(added.code, added.stderr).toBe(0);
    expect(parseJson<CasesAdded>(added).cases[0]).toMatchObject({
      input: texts.travelQuestion,
      expected: { output: texts.travelAnswer },
      source: { trace_id: 'cli-ds-1' },
    });

    const csv = path.join(dir, 'cases.csv');
    fs.writeFileSync(csv, 'question,answer,weight\r\n"two\r\n\r\nparagraphs 🌍",يوم,1\r\nbad,row,heavy\r\n');
    const imported = await cli([
      'suites',
      'import',
      'cli-datasets',
      csv,
      '--map',
      'input=question',
      '--map',
      'expected.output=answer',
      '--map',
      'weight=weight',
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/Added 1 cases: suite cli-datasets version 3/);
    expect(imported.stderr).toMatch(/1 rows not imported/);
    expect(imported.stderr).toMatch(/weight/);
    const v3 = await ok<SuiteVersion>(await call(`/api/suites/${suite.id}`));
    expect(v3.definition.cases.at(-1)).toMatchObject({ input: 'two\r\n\r\nparagraphs 🌍', expected: { output: 'يوم' } });

    const out = path.join(dir, 'v3.csv');
    const exported = await cli(['suites', 'export', 'cli-datasets', '--format', 'csv', '-o', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const fromApi = await (await call(`/api/suites/${suite.id}/versions/3/export?format=csv`)).text();
    expect(fs.readFileSync(out, 'utf8')).toBe(fromApi);
    const yaml = await cli(['suites', 'export', suite.id, '--suite-version', '1', '--format', 'yaml']);
    expect(yaml.stdout).toMatch(/^name: cli-datasets/);

    const neither = await cli(['suites', 'add-trace', 'cli-datasets']);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/give trace ids, or one of --span, --session or --filter/);
  });
});
