import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../api/openapi/document.js';
import { API_ROUTES } from '../../../api/openapi/registry.js';
import { REPO_ROOT } from '../../helpers/processes.js';

/**
 * The typed client (sdk/endpoints*.ts) calls only paths the OpenAPI document has: a call to a
 * path that no route declares (a typo, a route renamed on one side) fails here. Each path
 * literal of the client's endpoint files, its `${...}` parts standing for one path segment.
 */

const doc = buildOpenApiDocument(API_ROUTES, { version: 'test' });
const patterns = Object.keys(doc.paths).map((p) => new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}$`));

/** `/api/runs/${enc(runId)}/status` -> `/api/runs/x/status` (balanced braces: `${enc(await c.projectId(id))}`). */
function sample(literal: string): string {
  let out = '';
  for (let i = 0; i < literal.length; i++) {
    if (literal.startsWith('${', i)) {
      let depth = 0;
      for (; i < literal.length; i++) {
        if (literal[i] === '{') depth++;
        else if (literal[i] === '}' && --depth === 0) break;
      }
      out += 'x';
    } else out += literal[i];
  }
  return out;
}

function clientPaths(): string[] {
  const dir = path.join(REPO_ROOT, 'sdk');
  const found = new Set<string>();
  for (const file of fs.readdirSync(dir).filter((f) => /^endpoints.*\.ts$/.test(f))) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/(['`])(\/(?:api|v1)\/(?:(?!\1)[^\n])*)\1/g)) {
      if (!m[2].includes('...')) found.add(sample(m[2]));
    }
  }
  return [...found];
}

describe('the typed client and the document', () => {
  it('calls only documented paths', () => {
    const paths = clientPaths();
    expect(paths.length).toBeGreaterThan(60);
    expect(paths.filter((p) => !patterns.some((re) => re.test(p)))).toEqual([]);
  });
});
