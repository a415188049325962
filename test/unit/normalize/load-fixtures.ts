import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RawSpan } from '../../../core/model/raw-span.js';
import type { FixtureExpectation } from '../../helpers/convention-fixture.js';

export interface Fixture {
  /** `<convention>/<file>`, for test names. */
  id: string;
  description: string;
  raw: RawSpan;
  expected: FixtureExpectation;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/conventions');

/** Every fixture under test/fixtures/conventions/<convention>/*.json. */
export function loadFixtures(): Fixture[] {
  return readdirSync(ROOT)
    .sort()
    .flatMap((dir) =>
      readdirSync(join(ROOT, dir))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((file) => {
          const parsed = JSON.parse(readFileSync(join(ROOT, dir, file), 'utf8')) as RawSpan & {
            description: string;
            source: string;
            expected: FixtureExpectation;
          };
          // `description`, `source` and `expected` document the fixture; the rest is the RawSpan.
          const { description, expected } = parsed;
          const raw: RawSpan = { ...parsed };
          for (const k of ['description', 'source', 'expected']) Reflect.deleteProperty(raw, k);
          return { id: `${dir}/${file}`, description, raw, expected };
        }),
    );
}

/** One fixture by id, for tests that build on a real span. */
export function fixture(id: string): Fixture {
  const found = loadFixtures().find((f) => f.id === id);
  if (!found) throw new Error(`no fixture ${id}`);
  return found;
}
