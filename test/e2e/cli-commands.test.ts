import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../helpers/processes.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type AgentRequest, type TestAgent } from '../helpers/test-agent.js';
import { eventually } from '../helpers/eventually.js';
import { BIN, parseJson, runCli, type CliResult } from '../cli/run-cli.js';

/**
 * The `agent-eval` CLI end to end: `node bin/agent-eval.js ...` in child processes against a
 * real service (chDB, embedded PostgreSQL, Temporal dev server) and an HTTP agent served by the
 * test. Exit codes, the SPEC's messages, --json output, the config file and comparison gates.
 * The CLI runs compiled, as installed (dist/ is built first when a source is newer).
 */

interface RunJson {
  passed: boolean;
  problems: string[];
  run: {
    run_id: string;
    status: string;
    execution: string;
    suite_name: string;
    suite_version: number;
    agent_version: string;
    summary: { total_cases: number; passed: number; failed: number; avg_score: number };
  };
  results: Array<{ case_name: string; status: string; scores: Record<string, number> }>;
}

/** Answers `input.answer` and calls `input.tools`; version `v2-bad` forgets the tool of `rome`, `input.delay_ms` waits. */
function behaviour(req: AgentRequest) {
  const input = req.body.input as { answer?: string; tools?: string[]; delay_ms?: number };
  const bad = req.body.agent_version === 'v2-bad' && req.body.case.name === 'rome';
  const answer = { json: { output: input.answer ?? '', tool_calls: bad ? [] : (input.tools ?? []) } };
  if (input.delay_ms) return new Promise<typeof answer>((r) => setTimeout(() => r(answer), input.delay_ms));
  return answer;
}

const WEATHER = `name: weather
description: Weather questions
scorers: [contains, toolSelection]
minScore: 0.7
cases:
  - name: paris
    input: {answer: "It is sunny in Paris", tools: [forecast]}
    expected: {outputContains: [sunny], toolCalls: [forecast]}
  - name: rome
    input: {answer: "Rain in Rome", tools: [forecast]}
    expected: {outputContains: [rain], toolCalls: [forecast]}
`;

const HALF = `name: half-marks
scorers: [contains]
minScore: 0.5
cases:
  - name: one of two
    input: {answer: "alpha"}
    expected: {outputContains: [alpha, beta]}
`;

const FAILING = `name: failing
scorers: [contains]
cases:
  - name: passes
    input: {answer: "yes"}
    expected: {outputContains: ["yes"]}
  - name: fails
    input: {answer: "no"}
    expected: {outputContains: ["snow"]}
`;

let service: TestService;
let agent: TestAgent;
let dir: string;
let env: Record<string, string>;
const file = (name: string) => path.join(dir, name);

function cli(args: string[], extra: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCli(args, { env: { ...env, ...extra }, cwd: dir });
}

/** The output of a failed expectation names the command's whole output. */
function expectExit(result: CliResult, code: number): void {
  expect(result.code, `exit ${result.code}\n--- stdout:\n${result.stdout}\n--- stderr:\n${result.stderr}`).toBe(code);
}

beforeAll(async () => {
  agent = await startTestAgent(behaviour);
  // The CLI as an installed package runs it: from dist/ (bin/agent-eval.js), built here when stale.
  [service] = await Promise.all([startTestService({ EVAL_RETRY_TIME_SCALE: '0.001' }), buildDist()]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-cli-'));
  fs.writeFileSync(file('weather.yaml'), WEATHER);
  fs.writeFileSync(file('half.yml'), HALF);
  fs.writeFileSync(file('failing.yaml'), FAILING);
  fs.writeFileSync(file('notes.txt'), 'name: x\n');
  fs.writeFileSync(file('no-cases.yaml'), 'name: broken\nscorers: [contains]\n');
  fs.writeFileSync(file('bad-scorer.yaml'), 'name: broken\ncases:\n  - name: a\n    input: 1\n    scorers: [nope]\n');
  fs.writeFileSync(file('syntax.yaml'), 'name: [unclosed\ncases: 1\n');
  env = { AGENT_EVAL_URL: service.apiUrl!, AGENT_EVAL_API_KEY: service.apiKey!, AGENT_EVAL_CONFIG: file('no-config.json') };
});

afterAll(async () => {
  await service?.stop();
  await agent?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the SPEC messages of suite files (no service needed)', () => {
  it('File not found, Suite must be a YAML file, Invalid suite file: exit 1', async () => {
    const [missing, notYaml, dirArg, noCases, badScorer, syntax] = await Promise.all([
      cli(['run', 'missing.yaml']),
      cli(['run', 'notes.txt']),
      cli(['suites', 'push', '.']),
      cli(['suites', 'push', 'no-cases.yaml']),
      cli(['suites', 'validate', 'bad-scorer.yaml']),
      cli(['run', 'syntax.yaml', '--agent', agent.url]),
    ]);
    for (const r of [missing, notYaml, dirArg, noCases, badScorer, syntax]) expectExit(r, 1);
    expect(missing.stderr).toContain('File not found: missing.yaml');
    expect(notYaml.stderr).toContain('Suite must be a YAML file: notes.txt');
    expect(dirArg.stderr).toContain('Suite must be a YAML file: .');
    expect(noCases.stderr).toContain('Invalid suite file: cases: is required');
    expect(badScorer.stderr).toMatch(/Invalid suite file: cases\[0\]\.scorers\[0\]: unknown scorer 'nope'/);
    expect(syntax.stderr).toMatch(/Invalid suite file: .* at line \d+, column \d+/);
  });

  it("suites validate checks a good file with the server's parser and prints the definition", async () => {
    const r = await cli(['suites', 'validate', 'weather.yaml', '--json']);
    expectExit(r, 0);
    expect(parseJson<{ name: string; defaultMinScore: number; cases: unknown[] }>(r)).toMatchObject({
      name: 'weather',
      defaultMinScore: 0.7,
      cases: [{ name: 'paris' }, { name: 'rome' }],
    });
  });
});

describe('credentials', () => {
  it('Not authenticated without a key in the environment or a config file', async () => {
    const [list, run] = await Promise.all([
      cli(['runs', 'list'], { AGENT_EVAL_API_KEY: undefined, AGENT_EVAL_URL: undefined }),
      cli(['run', 'weather.yaml'], { AGENT_EVAL_API_KEY: undefined }),
    ]);
    for (const r of [list, run]) {
      expectExit(r, 1);
      expect(r.stderr).toContain('Not authenticated');
    }
  });

  it('a key the service refuses is Not authenticated too', async () => {
    const r = await cli(['projects', '--json'], { AGENT_EVAL_API_KEY: 'ae_live_00000000000000000000000000000000' });
    expectExit(r, 1);
    expect(r.stderr).toContain('Not authenticated');
  });

  it('login checks the key, writes a 0600 config file, and the environment overrides it', async () => {
    const config = file('home/.config/agent-eval/config.json');
    const bare = { AGENT_EVAL_CONFIG: config, AGENT_EVAL_URL: undefined, AGENT_EVAL_API_KEY: undefined };

    const refused = await cli(['login', '--url', service.apiUrl!, '--api-key', 'ae_live_00000000000000000000000000000000'], bare);
    expectExit(refused, 1);
    expect(refused.stderr).toContain('Not authenticated');
    expect(fs.existsSync(config)).toBe(false);

    const login = await cli(['login', '--url', service.apiUrl!, '--api-key', service.apiKey!, '--json'], bare);
    expectExit(login, 0);
    expect(parseJson(login)).toMatchObject({ url: service.apiUrl, config_file: config, verified: true });
    expect(fs.statSync(config).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(config, 'utf8'))).toEqual({ url: service.apiUrl, api_key: service.apiKey });

    // The file alone is enough.
    const projects = await cli(['projects', '--json'], bare);
    expectExit(projects, 0);
    expect(parseJson<{ projects: Array<{ id: string }> }>(projects).projects.map((p) => p.id)).toContain(service.defaultProjectId);

    // Each variable overrides its field of the file.
    const badKey = await cli(['projects'], { ...bare, AGENT_EVAL_API_KEY: 'ae_live_11111111111111111111111111111111' });
    expectExit(badKey, 1);
    expect(badKey.stderr).toContain('Not authenticated');
    const badUrl = await cli(['projects'], { ...bare, AGENT_EVAL_URL: 'http://127.0.0.1:9' });
    expectExit(badUrl, 1);
    expect(badUrl.stderr).toContain('Service unreachable: GET http://127.0.0.1:9/api/projects');

    // The key can also come on stdin (no terminal).
    const piped = await runCli(['login', '--url', service.apiUrl!], { env: { ...env, ...bare }, cwd: dir, input: `${service.apiKey}\n` });
    expectExit(piped, 0);
    expect(fs.statSync(config).mode & 0o777).toBe(0o600);

    const logout = await cli(['logout'], bare);
    expectExit(logout, 0);
    expect(fs.existsSync(config)).toBe(false);
  });
});

describe('run', () => {
  it('pushes the suite, runs it on the agent, prints progress and a results table; exit 0 when all pass', async () => {
    const r = await cli(['run', 'weather.yaml', '--agent', agent.url, '--agent-version', 'v1', '--poll-interval', '200']);
    expectExit(r, 0);
    // Not a terminal: plain progress lines on stderr, no bar, no colours.
    expect(r.stderr).toMatch(/weather: 2\/2 cases, completed \(2 passed, 0 failed\)/);
    expect(r.stderr).not.toContain('\u2588');
    expect(r.stdout + r.stderr).not.toContain('\u001b[');
    expect(r.stdout).toMatch(/Run [0-9a-f-]{36}: suite weather v1 \(created\)/);
    expect(r.stdout).toMatch(/│ paris\s+│ passed\s+│ 1\.00/);
    expect(r.stdout).toMatch(/│ rome\s+│ passed/);
    expect(r.stdout).toContain('2 cases: 2 passed, 0 failed; average score 1.00');
    expect(r.stdout).toContain('PASSED');
    expect(agent.callsFor('paris').length).toBeGreaterThanOrEqual(1);
  });

  it('--json prints the run and its results; an unchanged suite file adds no version', async () => {
    const r = await cli(['run', 'weather.yaml', '--agent', agent.url, '--agent-version', 'v1', '--json', '--poll-interval', '200']);
    expectExit(r, 0);
    const out = parseJson<RunJson>(r);
    expect(out.passed).toBe(true);
    expect(out.run).toMatchObject({
      status: 'completed',
      suite_name: 'weather',
      suite_version: 1,
      agent_version: 'v1',
      summary: { total_cases: 2, passed: 2, failed: 0 },
    });
    expect(out.results.map((x) => [x.case_name, x.status])).toEqual([
      ['paris', 'passed'],
      ['rome', 'passed'],
    ]);
    expect(out.results[0].scores).toEqual({ contains: 1, toolSelection: 1 });
    expect(r.stderr).toMatch(/Run [0-9a-f-]{36}: suite weather v1 \(unchanged\)/);
  });

  it('exit 1 when a case fails', async () => {
    const r = await cli(['run', 'failing.yaml', '--agent', agent.url, '--poll-interval', '200']);
    expectExit(r, 1);
    expect(r.stdout).toMatch(/│ fails\s+│ failed\s+│ 0\.00/);
    expect(r.stdout).toContain('contains: found 0 of 1 expected strings');
    expect(r.stdout).toContain('FAILED: 1 of 2 cases failed');
  });

  it('--min-score fails a run whose cases pass but whose average is lower', async () => {
    const passing = await cli(['run', 'half.yml', '--agent', agent.url, '--json', '--poll-interval', '200']);
    expectExit(passing, 0);
    expect(parseJson<RunJson>(passing).run.summary.avg_score).toBe(0.5);
    const gated = await cli(['run', 'half.yml', '--agent', agent.url, '--min-score', '0.8', '--poll-interval', '200']);
    expectExit(gated, 1);
    expect(gated.stdout).toContain('FAILED: average score 0.50 is below --min-score 0.80');
    const bad = await cli(['run', 'half.yml', '--agent', agent.url, '--min-score', '2']);
    expectExit(bad, 1);
    expect(bad.stderr).toContain('--min-score must be a number between 0 and 1');
  });

  it('runs a stored suite by name; Suite not found: {name} for an unknown one', async () => {
    const stored = await cli(['run', 'weather', '--agent', agent.url, '--agent-version', 'v1', '--json', '--poll-interval', '200']);
    expectExit(stored, 0);
    expect(parseJson<RunJson>(stored).run.suite_name).toBe('weather');
    const unknown = await cli(['run', 'no-such-suite', '--agent', agent.url]);
    expectExit(unknown, 1);
    expect(unknown.stderr).toContain('Suite not found: no-such-suite');
  });

  it('says how to name the agent when neither --agent nor the suite does', async () => {
    const r = await cli(['run', 'weather.yaml']);
    expectExit(r, 1);
    expect(r.stderr).toContain('agent_id is required');
    expect(r.stderr).toContain('--agent');
  });
});

describe('runs', () => {
  it('list, show and results, as tables and as JSON; Run not found: {run_id}', async () => {
    const list = await cli(['runs', 'list', '--suite', 'weather', '--json']);
    expectExit(list, 0);
    const runs = parseJson<{ runs: Array<{ run_id: string; suite_name: string; status: string }>; total: number }>(list).runs;
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(new Set(runs.map((r) => r.suite_name))).toEqual(new Set(['weather']));
    const id = runs[0].run_id;

    const [table, show, showJson, results, failedOnly] = await Promise.all([
      cli(['runs']),
      cli(['runs', 'show', id]),
      cli(['runs', 'show', id, '--json']),
      cli(['runs', 'results', id, '--json']),
      cli(['runs', 'results', id, '--failed-only']),
    ]);
    for (const r of [table, show, showJson, results, failedOnly]) expectExit(r, 0);
    expect(table.stdout).toContain(id);
    expect(show.stdout).toMatch(/Status\s+completed/);
    expect(show.stdout).toMatch(/│ contains\s+│ 1\.00/);
    expect(parseJson(showJson)).toMatchObject({ run_id: id, status: 'completed', suite_name: 'weather' });
    expect(parseJson<{ results: unknown[] }>(results).results).toHaveLength(2);
    expect(failedOnly.stdout).toContain('No failed cases');

    const missing = '00000000-0000-4000-8000-000000000000';
    const [show404, results404, notUuid] = await Promise.all([
      cli(['runs', 'show', missing]),
      cli(['runs', 'results', missing, '--json']),
      cli(['runs', 'show', 'nope']),
    ]);
    for (const r of [show404, results404, notUuid]) expectExit(r, 1);
    expect(show404.stderr).toContain(`Run not found: ${missing}`);
    expect(results404.stderr).toContain(`Run not found: ${missing}`);
    expect(notUuid.stderr).toContain('Run not found: nope');
  });
});

describe('compare', () => {
  it('Not enough runs to compare with fewer than two completed runs of the suite', async () => {
    fs.writeFileSync(file('lonely.yaml'), 'name: lonely\nscorers: [contains]\ncases:\n  - {name: a, input: {answer: x}, expected: {outputContains: [x]}}\n');
    const push = await cli(['suites', 'push', 'lonely.yaml']);
    expectExit(push, 0);
    const none = await cli(['compare', '--suite', 'lonely']);
    expectExit(none, 1);
    expect(none.stderr).toContain('Not enough runs to compare');
    const run = await cli(['run', 'lonely.yaml', '--agent', agent.url, '--poll-interval', '200']);
    expectExit(run, 0);
    const one = await cli(['compare', '--suite', 'lonely.yaml']);
    expectExit(one, 1);
    expect(one.stderr).toContain('Not enough runs to compare');
    const unknown = await cli(['compare', '--suite', 'never-pushed']);
    expectExit(unknown, 1);
    expect(unknown.stderr).toContain('Suite not found: never-pushed');
  });

  it('compares the latest two runs of a suite; --fail-on-regression fails the build on a regression', async () => {
    const bad = await cli(['run', 'weather.yaml', '--agent', agent.url, '--agent-version', 'v2-bad', '--json', '--poll-interval', '200']);
    expectExit(bad, 1);
    const candidate = parseJson<RunJson>(bad).run.run_id;

    const report = await cli(['compare', '--suite', 'weather']);
    expectExit(report, 0);
    expect(report.stdout).toContain(`${candidate} (v2-bad)`);
    expect(report.stdout).toContain('Regressions (1):');
    expect(report.stdout).toContain('rome / toolSelection: 1.00 -> 0.00 (-1.00)');

    const gate = await cli(['compare', '--suite', 'weather', '--fail-on-regression', '5%']);
    expectExit(gate, 1);
    expect(gate.stdout).toContain('FAILED: 1 regression beyond 5%');

    const json = await cli(['compare', '--fail-on-regression', '0.05', '--json']);
    expectExit(json, 1);
    const cmp = parseJson<{
      passed: boolean;
      threshold: number;
      baseline: { agent_version: string };
      candidate: { run_id: string };
      regressions: Array<{ case_name: string; scorer: string; delta: number }>;
    }>(json);
    expect(cmp).toMatchObject({ passed: false, threshold: 0.05, baseline: { agent_version: 'v1' }, candidate: { run_id: candidate } });
    expect(cmp.regressions).toEqual([expect.objectContaining({ case_name: 'rome', scorer: 'toolSelection', delta: -1 })]);

    // By ids: a v1 run against another v1 run passes the gate.
    const v1 = parseJson<{ runs: Array<{ run_id: string }> }>(await cli(['runs', 'list', '--suite', 'weather', '--agent-version', 'v1', '--json'])).runs;
    const same = await cli(['compare', v1[1].run_id, v1[0].run_id, '--fail-on-regression', '5%']);
    expectExit(same, 0);
    expect(same.stdout).toContain('PASSED');
    // A baseline alone is compared with the newest run of its suite.
    const againstNewest = await cli(['compare', v1[0].run_id, '--json']);
    expectExit(againstNewest, 0);
    expect(parseJson<{ candidate: { run_id: string } }>(againstNewest).candidate.run_id).toBe(candidate);
  });

  it('threshold validation, Run not found and Failed to compare runs', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const runs = parseJson<{ runs: Array<{ run_id: string }> }>(await cli(['runs', 'list', '--suite', 'weather', '--json'])).runs;
    const results = await Promise.all([
      cli(['compare', '--fail-on-regression', '']),
      cli(['compare', '--fail-on-regression', 'lots']),
      cli(['compare', '--fail-on-regression', '0']),
      cli(['compare', '--fail-on-regression', '-5%']),
      cli(['compare', '--fail-on-regression', '150%']),
      cli(['compare', missing, runs[0].run_id]),
      cli(['compare', runs[0].run_id, missing]),
      cli(['compare', runs[0].run_id, runs[0].run_id]),
    ]);
    for (const r of results) expectExit(r, 1);
    const [empty, word, zero, negative, over, baseline404, candidate404, same] = results.map((r) => r.stderr);
    expect(empty).toContain('Threshold value cannot be empty');
    expect(word).toContain('Invalid threshold value: "lots"');
    expect(zero).toContain('Threshold must be positive');
    expect(negative).toContain('Threshold must be positive');
    expect(over).toContain('Threshold cannot exceed 100%');
    expect(baseline404).toContain(`Run not found: ${missing}`);
    expect(candidate404).toContain(`Run not found: ${missing}`);
    expect(same).toContain('Failed to compare runs');
  });
});

describe('suites, projects and keys', () => {
  it('suites push creates, then keeps or versions the suite; list and show', async () => {
    const unchanged = await cli(['suites', 'push', 'weather.yaml', '--json']);
    expectExit(unchanged, 0);
    expect(parseJson(unchanged)).toMatchObject({ name: 'weather', version: 1, outcome: 'unchanged' });
    fs.writeFileSync(file('weather-v2.yaml'), WEATHER.replace('Weather questions', 'Weather questions, v2'));
    const updated = await cli(['suites', 'push', 'weather-v2.yaml']);
    expectExit(updated, 0);
    expect(updated.stdout).toMatch(/Updated suite weather \(version 2, 2 cases/);

    const [list, listJson, show, showOld, unknown] = await Promise.all([
      cli(['suites']),
      cli(['suites', 'list', '--json']),
      cli(['suites', 'show', 'weather']),
      cli(['suites', 'show', 'weather', '--suite-version', '1', '--json']),
      cli(['suites', 'show', 'nope']),
    ]);
    expectExit(list, 0);
    expect(list.stdout).toMatch(/│ weather\s+│ 2\s+│ 2/);
    expect(parseJson<{ suites: Array<{ name: string }> }>(listJson).suites.map((s) => s.name)).toEqual(
      expect.arrayContaining(['weather', 'failing', 'half-marks', 'lonely']),
    );
    expect(show.stdout).toMatch(/Version\s+2 of 2/);
    expect(show.stdout).toMatch(/│ paris\s+│/);
    expect(parseJson(showOld)).toMatchObject({ version: 1, definition: { description: 'Weather questions' } });
    expectExit(unknown, 1);
    expect(unknown.stderr).toContain('Suite not found: nope');
  });

  it("projects lists the key's project; keys create, list and revoke", async () => {
    const projects = await cli(['projects']);
    expectExit(projects, 0);
    expect(projects.stdout).toContain(service.defaultProjectId);

    const created = await cli(['keys', 'create', 'ci', '--role', 'member', '--json']);
    expectExit(created, 0);
    const key = parseJson<{ id: string; key: string; role: string; name: string }>(created);
    expect(key).toMatchObject({ name: 'ci', role: 'member' });
    expect(key.key).toMatch(/^ae_live_/);

    // The new key works, and cannot administer keys (member).
    const asMember = await cli(['runs', 'list', '--json'], { AGENT_EVAL_API_KEY: key.key });
    expectExit(asMember, 0);
    const forbidden = await cli(['keys', 'list'], { AGENT_EVAL_API_KEY: key.key });
    expectExit(forbidden, 1);
    expect(forbidden.stderr).toContain('Service API error: 403');

    const list = await cli(['keys', '--json']);
    expectExit(list, 0);
    expect(parseJson<{ keys: Array<{ id: string; name: string }> }>(list).keys.map((k) => k.id)).toContain(key.id);
    expect(list.stdout).not.toContain(key.key);

    const revoked = await cli(['keys', 'revoke', key.id]);
    expectExit(revoked, 0);
    const again = await cli(['keys', 'revoke', key.id]);
    expectExit(again, 1);
    expect(again.stderr).toContain(`Failed to revoke key: ${key.id}`);
    const afterRevoke = await cli(['runs', 'list'], { AGENT_EVAL_API_KEY: key.key });
    expectExit(afterRevoke, 1);
    expect(afterRevoke.stderr).toContain('Not authenticated');
    const bad = await cli(['keys', 'create', 'x', '--role', 'root']);
    expectExit(bad, 1);
    expect(bad.stderr).toContain('--role must be one of: admin, member, viewer');
  });

  it('--help works on every command', async () => {
    const commands = [
      [],
      ['run'],
      ['runs'],
      ['runs', 'list'],
      ['runs', 'show'],
      ['runs', 'results'],
      ['compare'],
      ['suites'],
      ['suites', 'push'],
      ['projects'],
      ['keys'],
      ['keys', 'create'],
      ['login'],
    ];
    const results = await Promise.all(commands.map((c) => cli([...c, '--help'], { AGENT_EVAL_API_KEY: undefined })));
    results.forEach((r, i) => {
      expectExit(r, 0);
      expect(r.stdout).toContain(`Usage: agent-eval${commands[i].length ? ` ${commands[i].join(' ')}` : ''}`);
    });
    expect(results[6].stdout).toContain('--fail-on-regression <threshold>');
  });
});

describe("run --local (the SDK's evaluate())", () => {
  it("runs a module's agent function in the CLI process and uploads the run", async () => {
    fs.writeFileSync(
      file('agent.mjs'),
      'export function answer(input) { return input.answer; }\nexport default function () { throw new Error("agent exploded"); }\n',
    );
    fs.writeFileSync(
      file('local.yaml'),
      'name: local\nscorers: [contains]\ncases:\n  - {name: hi, input: {answer: hello}, expected: {outputContains: [hello]}}\n  - {name: bye, input: {answer: bye}, expected: {outputContains: [bye]}}\n',
    );
    const r = await cli(['run', 'local.yaml', '--local', '--agent', 'agent.mjs:answer', '--agent-version', 'l1', '--json']);
    expectExit(r, 0);
    const out = parseJson<RunJson>(r);
    expect(out.passed).toBe(true);
    expect(out.run).toMatchObject({
      status: 'completed',
      execution: 'local',
      suite_name: 'local',
      agent_version: 'l1',
      summary: { total_cases: 2, passed: 2, failed: 0 },
    });
    expect(out.results.map((x) => x.status)).toEqual(['passed', 'passed']);
    expect(r.stderr).toMatch(/local: 2\/2 cases, completed \(2 passed, 0 failed\)/);
    // The service shows the run like a managed one.
    const show = await cli(['runs', 'show', out.run.run_id, '--json']);
    expectExit(show, 0);
    expect(parseJson(show)).toMatchObject({ run_id: out.run.run_id, execution: 'local', status: 'completed' });

    const [throws, noAgent, noExport] = await Promise.all([
      cli(['run', 'local.yaml', '--local', '--agent', 'agent.mjs']),
      cli(['run', 'local.yaml', '--local']),
      cli(['run', 'local.yaml', '--local', '--agent', 'agent.mjs:nope']),
    ]);
    expectExit(throws, 1);
    expect(throws.stdout).toContain('agent exploded');
    expect(throws.stdout).toContain('FAILED: 2 of 2 cases failed');
    expectExit(noAgent, 1);
    expect(noAgent.stderr).toContain('Agent is required in local mode');
    expectExit(noExport, 1);
    expect(noExport.stderr).toContain("Failed to load agent: agent.mjs has no function export 'nope'");
  });

  it('calls an HTTP agent with the agent protocol; the local run is compared with managed ones', async () => {
    const r = await cli(['run', 'weather.yaml', '--local', '--agent', agent.url, '--agent-version', 'v1-local', '--json']);
    expectExit(r, 0);
    const out = parseJson<RunJson>(r);
    expect(out.run).toMatchObject({ execution: 'local', suite_name: 'weather', summary: { passed: 2, failed: 0 } });
    expect(out.results.map((x) => x.scores)).toEqual([
      { contains: 1, toolSelection: 1 },
      { contains: 1, toolSelection: 1 },
    ]);
    const calls = agent.requests.filter((q) => q.body.run_id === out.run.run_id);
    expect(calls.map((q) => q.body.case.name).sort()).toEqual(['paris', 'rome']);
    expect(calls[0].traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    // Latest two completed weather runs: the v2-bad managed run, then this one.
    const cmp = await cli(['compare', '--suite', 'weather', '--fail-on-regression', '5%', '--json']);
    expectExit(cmp, 0);
    expect(parseJson(cmp)).toMatchObject({
      passed: true,
      baseline: { agent_version: 'v2-bad' },
      candidate: { run_id: out.run.run_id },
      improvements: [{ case_name: 'rome', scorer: 'toolSelection' }],
    });
  });
});

describe('in a real terminal (tmux)', () => {
  const socket = `agent-eval-cli-test-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

  /** Starts the CLI in a detached 120x30 terminal; the shell prints its exit code and waits. */
  function startInTerminal(name: string, args: string[], extraEnv: string[] = []): void {
    const vars = [
      '-u',
      'NO_COLOR',
      '-u',
      'CI',
      `AGENT_EVAL_URL=${service.apiUrl}`,
      `AGENT_EVAL_API_KEY=${service.apiKey}`,
      `AGENT_EVAL_CONFIG=${file('no-config.json')}`,
      ...extraEnv,
    ];
    const command = ['env', ...vars, process.execPath, BIN, ...args].map(quote).join(' ');
    tmux('new-session', '-d', '-x', '120', '-y', '30', '-s', name, '-c', dir, `${command}; echo "exit=$?"; sleep 600`);
  }

  afterAll(() => {
    try {
      tmux('kill-server');
    } catch {
      // no server left
    }
    // kill-server leaves the socket file behind.
    fs.rmSync(path.join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
  });

  it('shows a progress bar while the run goes on, then the results table in colour', async () => {
    const cases = Array.from({ length: 6 }, (_, i) => `  - {name: slow ${i}, input: {answer: ok, delay_ms: 700}, expected: {outputContains: [ok]}}`).join('\n');
    fs.writeFileSync(file('slow.yaml'), `name: slow\nscorers: [contains]\ncases:\n${cases}\n`);
    startInTerminal('bar', ['run', 'slow.yaml', '--agent', agent.url, '--poll-interval', '200']);

    // While the run goes on: a cli-progress bar with the count of finished cases.
    const during = await eventually(() => {
      const screen = tmux('capture-pane', '-p', '-t', 'bar');
      expect(screen).toMatch(/slow \[[\u2588\u2591]{30}\] [1-5]\/6 cases \| \d+% \| running \| [1-5] passed, 0 failed/);
      return screen;
    }, 60_000);
    expect(during).not.toContain('exit=');

    const done = await eventually(() => {
      const screen = tmux('capture-pane', '-p', '-e', '-t', 'bar');
      expect(screen).toContain('exit=0');
      return screen;
    }, 60_000);
    const plain = tmux('capture-pane', '-p', '-t', 'bar');
    expect(plain).toMatch(/slow \[\u2588{30}\] 6\/6 cases \| 100% \| completed \| 6 passed, 0 failed/);
    expect(plain).toMatch(/│ slow 5\s+│ passed/);
    expect(plain).toContain('PASSED');
    // On a terminal, statuses are coloured (tmux re-emits the attributes with -e).
    expect(done).toMatch(/\u001b\[[0-9;]*32m/);
  });

  it('never colours with NO_COLOR, even on a terminal', async () => {
    startInTerminal('plain', ['run', 'weather.yaml', '--agent', agent.url, '--agent-version', 'v1', '--poll-interval', '200'], ['NO_COLOR=1']);
    const screen = await eventually(() => {
      const s = tmux('capture-pane', '-p', '-e', '-t', 'plain');
      expect(s).toContain('exit=0');
      return s;
    }, 60_000);
    expect(screen).toMatch(/weather \[\u2588{30}\] 2\/2 cases/);
    expect(screen).not.toMatch(/\u001b\[[0-9;]*m/);
  });
});
