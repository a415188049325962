import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/processes.js';

/**
 * The packed package as another project installs it: `npm pack` (its `prepare` script,
 * scripts/build-dist.mjs --if-stale, compiles the service and the SDK into dist/), the tarball
 * unpacked where `npm install <tgz>` puts it. The `agent-eval` command runs the compiled service;
 * plain Node (no tsx) runs a JavaScript file importing `agent-eval/sdk`, and tsc checks a
 * TypeScript one against the shipped declarations.
 *
 * The install step is done by hand: this machine has no registry access, and npm's offline
 * cache lacks the package's dependencies, so the unpacked package gets the repository's
 * node_modules as its own (what an install would have put there), but for tsx: nothing the
 * installed package runs may need a TypeScript loader.
 */

let dir: string;
let consumer: string;
let files: string[];

function run(cmd: string, args: string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-pack-'));
  // `npm pack` runs `prepare` (scripts/build-dist.mjs --if-stale) first, as `npm publish` would.
  const out = run('npm', ['pack', '--json', '--pack-destination', dir], REPO_ROOT);
  const [packed] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = packed.files.map((f) => f.path);
  consumer = path.join(dir, 'consumer');
  const installed = path.join(consumer, 'node_modules', 'agent-eval');
  fs.mkdirSync(installed, { recursive: true });
  run('tar', ['-xzf', path.join(dir, packed.filename), '-C', installed, '--strip-components=1'], dir);
  // The repository's dependencies, one link each, without tsx (and its esbuild).
  const modules = path.join(installed, 'node_modules');
  fs.mkdirSync(modules);
  for (const name of fs.readdirSync(path.join(REPO_ROOT, 'node_modules'))) {
    if (name === 'tsx' || name === '.bin') continue;
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', name), path.join(modules, name), 'dir');
  }
  fs.writeFileSync(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true, dependencies: { 'agent-eval': 'file:../agent-eval.tgz' } }),
  );
}, 600_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships the compiled service and SDK, the SDK with its declarations', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/.build-stamp',
        'dist/main.js',
        'dist/runtime/service.js',
        'dist/api/app.js',
        'dist/collector/index.js',
        'dist/core/store/migrations.js',
        // Loaded by path, not imported: the regex pool's worker and the workflow bundle's sources (workflows/worker.ts hashes all three).
        'dist/core/safe-regex/worker.js',
        'dist/workflows/workflows.js',
        'dist/workflows/contract.js',
        'dist/workflows/activity-types.js',
        'dist/scripts/build-ui.js',
        'dist/sdk/index.js',
        'dist/sdk/index.d.ts',
        'dist/sdk/client.js',
        'dist/core/model/suite.js',
        'bin/agent-eval.js',
        'scripts/dist-state.mjs',
        // Read at run time from the package root, not compiled.
        'migrations/postgres/001_projects.sql',
        'core/cost/prices.json',
        'scripts/temporal.sh',
      ]),
    );
    expect(files.some((f) => f.startsWith('proto/') && f.endsWith('.proto'))).toBe(true);
    // Nothing of a build under way (scripts/build-dist.mjs's temporary tree and lock).
    expect(files.filter((f) => f.startsWith('.dist-'))).toEqual([]);
  });

  it('runs the agent-eval command from the installed package (what npx agent-eval runs), compiled, without tsx', async () => {
    const installed = path.join(consumer, 'node_modules', 'agent-eval');
    // npm pack gives every file the same time: the stamp is as new as the sources, so dist/ is current.
    const { distState } = (await import(pathToFileURL(path.join(installed, 'scripts', 'dist-state.mjs')).href)) as {
      distState: (root?: string) => { current: boolean; reason?: string };
    };
    expect(distState(installed)).toEqual({ current: true });
    // No TypeScript loader to be had: the command can only run dist/main.js.
    expect(() => createRequire(path.join(installed, 'package.json')).resolve('tsx/esm/api')).toThrow();
    const env = { PATH: process.env.PATH, HOME: consumer };
    const bin = path.join(installed, 'bin', 'agent-eval.js');
    const help = execFileSync(process.execPath, [bin, '--help'], { cwd: consumer, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
    expect(
      execFileSync(process.execPath, [path.join(installed, 'dist', 'main.js'), '--help'], {
        cwd: consumer,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env,
      }),
    ).toBe(help);
    for (const command of ['serve', 'migrate', 'run', 'runs', 'compare', 'suites', 'projects', 'keys', 'login'])
      expect(help).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    // A client command fails as the SPEC says when there are no credentials (none in this empty HOME).
    let failure: { status?: number; stderr?: string } = {};
    try {
      execFileSync(process.execPath, [bin, 'runs', 'list'], {
        cwd: consumer,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, HOME: consumer },
      });
    } catch (err) {
      failure = err as { status?: number; stderr?: string };
    }
    expect(failure.status).toBe(1);
    expect(failure.stderr).toContain('Not authenticated');
  });

  it('is imported by plain JavaScript in another project, without tsx', () => {
    fs.writeFileSync(
      path.join(consumer, 'index.mjs'),
      `import { init, trace, span, tool, AgentEvalClient, defineSuite, defineScorer, evaluate, defineExperiment, ServiceApiError, SPAN_KINDS } from 'agent-eval/sdk';
const tracing = init({ url: 'http://127.0.0.1:9', flushOnExit: false });
const answer = await trace('t', () => span('retrieval', 'r', () => tool({ name: 'x' }, () => 42)));
await tracing.shutdown();
const short = defineScorer({ name: 'short', evaluate: ({ output }) => String(output).length < 20 });
const suite = defineSuite({ name: 's', scorers: ['contains', 'regex', short], cases: [{ name: 'a', input: 'hi', expected: { outputContains: ['hi'], regex: ['^hi'] } }] });
const result = await evaluate(suite, { upload: false, agent: (input) => 'hi there' });
const experiment = defineExperiment({ name: 'e', variants: [{ name: 'c', type: 'control' }, { name: 't', type: 'treatment' }] });
const client = new AgentEvalClient({ url: 'http://127.0.0.1:9', retries: 0 });
console.log(JSON.stringify({ answer, kinds: SPAN_KINDS.length, passed: result.passed, scores: result.cases[0].scores, variant: experiment.assign('u').type !== undefined, client: typeof client.runs.list, error: typeof ServiceApiError }));
`,
    );
    const out = run(process.execPath, ['index.mjs'], consumer);
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({
      answer: 42,
      kinds: 9,
      passed: true,
      scores: { contains: 1, regex: 1, short: 1 },
      variant: true,
      client: 'function',
      error: 'function',
    });
  });

  it('type-checks a TypeScript consumer against the shipped declarations', () => {
    fs.writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(REPO_ROOT, 'node_modules/@types')],
        },
        files: ['check.ts'],
      }),
    );
    fs.writeFileSync(
      path.join(consumer, 'check.ts'),
      `import { AgentEvalClient, evaluate, init, span, type RunView, type EvaluationResult } from 'agent-eval/sdk';
init({ serviceName: 'typed' });
const client = new AgentEvalClient({ url: 'http://localhost:3000' });
export async function check(): Promise<string> {
  const run: RunView = await client.runs.get('id');
  const n: number = await span('generation', 'llm', (s) => { s.setUsage({ input_tokens: 1 }); return 1; });
  const r: EvaluationResult = await evaluate({ name: 's', scorers: ['contains'], cases: [{ name: 'a', input: 1 }] }, { agent: () => 'x' });
  // @ts-expect-error: a run's status is one of six strings
  const wrong: 'nope' = run.status;
  return run.agent_version + n + r.summary.avg_score + String(wrong);
}
`,
    );
    run(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', consumer], consumer);
  });
});
