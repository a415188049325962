import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from '../../runtime/node-flags.js';
import { REPO_ROOT } from '../helpers/processes.js';

const read = (file: string) => fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');

/** Every way of starting the service runs node with the same V8 flags (runtime/node-flags.ts). */
describe('service node flags', () => {
  it('npm start passes them to the compiled service (no TypeScript loader), npm run dev to the sources', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts.start).toContain(`node ${SERVICE_NODE_FLAGS.join(' ')} dist/main.js serve`);
    expect(scripts.start).not.toContain('tsx');
    expect(scripts.dev).toContain(`node ${SERVICE_NODE_FLAGS.join(' ')} --import tsx main.ts serve`);
  });

  it('the container entry point passes them to the compiled service', () => {
    const entry = /^ENTRYPOINT (.*)$/m.exec(read('deploy/Dockerfile'))?.[1];
    expect(JSON.parse(entry ?? 'null')).toEqual(['node', ...SERVICE_NODE_FLAGS, 'dist/main.js']);
  });

  it('the agent-eval command passes them through its shebang, and runs', () => {
    expect(read('bin/agent-eval.js').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${SERVICE_NODE_FLAGS.join(' ')}`);
    const help = execFileSync(path.join(REPO_ROOT, 'bin/agent-eval.js'), ['--help'], { encoding: 'utf8' });
    expect(help).toMatch(/^Usage: agent-eval/);
  });

  it("they take effect: the young generation grows past Node's default 32 MB (2 x 16 MB semi-spaces)", () => {
    // Objects that survive a while (a request's until its batch is written) make V8 grow the young generation to its maximum.
    const program = `let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ a: 'x' + i, b: [i] }); if (keep.length > 200000) keep = []; }
      const young = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      process.stdout.write(String(young.space_size));`;
    const youngBytes = (flags: readonly string[]) => Number(execFileSync(process.execPath, [...flags, '-e', program], { encoding: 'utf8' }));
    expect(youngBytes([])).toBeLessThanOrEqual(34 * 1024 * 1024);
    expect(youngBytes(SERVICE_NODE_FLAGS)).toBeGreaterThan(100 * 1024 * 1024);
  });
});
