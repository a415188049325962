import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('test run temporary directory', () => {
  it('puts every temporary file of the run under one directory that the run removes (test/global-setup.ts)', () => {
    expect(path.basename(os.tmpdir())).toMatch(/^agent-eval-tests-/);
  });
});
