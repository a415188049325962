import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registerCliCommands, type CliIo } from '../../cli/index.js';
import { REPO_ROOT } from '../helpers/processes.js';

/**
 * The CI workflows of docs/ci.md and the examples of docs/cli.md must stay runnable: the YAML
 * parses as a GitHub Actions workflow, and every `agent-eval` command they use exists with the
 * options they pass.
 */

const doc = (name: string) => fs.readFileSync(path.join(REPO_ROOT, 'docs', name), 'utf8');

function blocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}

/** The program as main.ts builds it, `serve` and `migrate` included. */
function program(): Command {
  const io = { env: {}, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin } as CliIo;
  const root = new Command('agent-eval');
  root.command('serve').option('--roles <roles>');
  root.command('migrate');
  registerCliCommands(root, io);
  return root;
}

/** Every `agent-eval ...` invocation in a shell text, with line continuations joined. */
function invocations(shell: string): string[][] {
  const joined = shell.replace(/(^|\s)#.*$/gm, '').replace(/\\\n\s*/g, ' ');
  return [...joined.matchAll(/(?<![\w./$-])agent-eval(?=\s|$)((?: +[^\s|;&>)]+)*)/g)].map((m) => m[1].trim().split(/ +/).filter(Boolean));
}

/** Checks the subcommand path and the long options of one invocation against the program. */
function check(root: Command, args: string[]): void {
  let cmd = root;
  let i = 0;
  for (; i < args.length; i++) {
    const sub = cmd.commands.find((c) => c.name() === args[i]);
    if (!sub) break;
    cmd = sub;
  }
  // A group alone runs its default subcommand (runs -> runs list).
  const fallback = cmd.commands.find((c) => c.name() === 'list');
  const known = new Set([...cmd.options, ...(fallback?.options ?? [])].map((o) => o.long));
  for (const arg of args.slice(i)) {
    if (!arg.startsWith('--')) continue;
    expect(known, `agent-eval ${args.join(' ')}: ${cmd.name()} has no ${arg}`).toContain(arg.split('=')[0]);
  }
  expect(cmd, `agent-eval ${args.join(' ')}`).not.toBe(root);
}

describe('docs/ci.md', () => {
  const workflows = blocks(doc('ci.md'), 'yaml');

  it('holds GitHub Actions workflows that parse', () => {
    expect(workflows.length).toBeGreaterThanOrEqual(2);
    for (const text of workflows) {
      const wf = parse(text) as { on: unknown; jobs: Record<string, { 'runs-on': string; steps: Array<{ run?: string; uses?: string }> }> };
      expect(wf.on).toBeDefined();
      for (const job of Object.values(wf.jobs)) {
        expect(job['runs-on']).toBe('ubuntu-latest');
        expect(job.steps.length).toBeGreaterThan(2);
        for (const step of job.steps) expect(step.run ?? step.uses).toBeTruthy();
      }
    }
  });

  it('runs a suite and gates on a regression with commands and options the CLI has', () => {
    const root = program();
    const runs = workflows.flatMap((text) =>
      Object.values((parse(text) as { jobs: Record<string, { steps: Array<{ run?: string }> }> }).jobs).flatMap((j) => j.steps.map((s) => s.run ?? '')),
    );
    const calls = runs.flatMap(invocations);
    expect(calls.some((c) => c[0] === 'run')).toBe(true);
    expect(calls.some((c) => c[0] === 'compare' && c.includes('--fail-on-regression'))).toBe(true);
    expect(calls.some((c) => c[0] === 'serve')).toBe(true);
    for (const call of calls) check(root, call);
    // The check itself catches a wrong option or command.
    expect(() => check(root, ['compare', '--fail-on-regresion', '5%'])).toThrow();
    expect(() => check(root, ['runz', 'list'])).toThrow();
  });
});

describe('docs/cli.md', () => {
  it('names only commands and options the CLI has', () => {
    const root = program();
    const calls = blocks(doc('cli.md'), 'sh').flatMap(invocations);
    expect(calls.length).toBeGreaterThan(2);
    for (const call of calls) check(root, call);
  });
});
