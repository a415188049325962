import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files start in: longest first, by the seconds each took in a whole run
 * (test/durations.json, written by `npm run test:durations` after `npm test`). The suite runs two
 * files at a time; a file of four minutes that starts last runs alone at the end, while the longest
 * first leaves only short files for the tail (longest-processing-time scheduling). Vitest's own
 * order needs its results cache, which a clean clone (CI) does not have: it then starts the largest
 * files first, whatever they cost. Files the table does not know (new ones) start first, then the
 * known ones by their time; a stale table changes only the order, never what runs.
 */
const TABLE = new URL('./durations.json', import.meta.url);

function durations(): Record<string, number> {
  if (!existsSync(TABLE)) return {};
  return JSON.parse(readFileSync(TABLE, 'utf8')) as Record<string, number>;
}

export default class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = durations();
    const root = this.ctx.config.root;
    const cost = (spec: TestSpecification) => seconds[relative(root, spec.moduleId)] ?? Number.POSITIVE_INFINITY;
    return Promise.resolve([...files].sort((a, b) => cost(b) - cost(a)));
  }
}
