#!/usr/bin/env -S node --max-semi-space-size=64
// The `agent-eval` command: runs the compiled entry point (dist/main.js) when dist/ is current
// (scripts/dist-state.mjs: built no earlier than every source, as in an installed package);
// otherwise, in a checkout being edited or a package installed with --ignore-scripts, the
// TypeScript entry point through tsx's loader.
import { distState } from '../scripts/dist-state.mjs';

if (distState().current) {
  await import('../dist/main.js');
} else {
  // Both of tsx's hooks, as `node --import tsx` registers them (`run --local` may load a user's
  // .ts agent module that Node takes for CommonJS).
  const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  esm.register();
  cjs.register();
  await import('../main.ts');
}
