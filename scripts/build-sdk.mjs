// Compiles the SDK (`agent-eval/sdk`) into dist/ with tsconfig.sdk.json: the package's `prepare`
// runs it (npm ci, npm install in a checkout, npm pack, npm publish). Where TypeScript is not
// installed (`npm ci --omit=dev`), there is nothing to compile with, and nothing needs it: a
// published package carries dist/, and a service checkout runs its TypeScript through tsx.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('build-sdk: typescript is not installed (dev dependencies omitted); dist/ is not built\n');
  process.exit(0);
}
// A clean build: files of modules the SDK no longer imports must not ship.
fs.rmSync(fileURLToPath(new URL('../dist', import.meta.url)), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', fileURLToPath(new URL('../tsconfig.sdk.json', import.meta.url))], { stdio: 'inherit' });
