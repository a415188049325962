#!/usr/bin/env node
// Writes test/durations.json (seconds per test file, the order test/sequencer.ts starts them in)
// from vitest's results cache of the last whole run (`npm test` first). Files that no longer
// exist are left out; run it after a full run on a quiet machine and commit the table.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheDir = 'node_modules/.vite/vitest';
const caches = existsSync(cacheDir)
  ? readdirSync(cacheDir)
      .map((d) => join(cacheDir, d, 'results.json'))
      .filter(existsSync)
  : [];
if (caches.length === 0) {
  console.error(`test-durations: no vitest results cache under ${cacheDir}: run npm test first`);
  process.exit(1);
}
const table = {};
for (const file of caches) {
  for (const [key, result] of JSON.parse(readFileSync(file, 'utf8')).results) {
    const path = key.replace(/^[^:]*:/, '');
    if (existsSync(path) && typeof result.duration === 'number') table[path] = Math.round(result.duration / 100) / 10;
  }
}
const sorted = Object.fromEntries(Object.entries(table).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
writeFileSync('test/durations.json', `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test-durations: ${Object.keys(sorted).length} files into test/durations.json`);
