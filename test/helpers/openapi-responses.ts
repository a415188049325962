import type Koa from 'koa';
import type { Context, Next } from 'koa';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument, type OpenApiDocument } from '../../api/openapi/document.js';
import { API_ROUTES } from '../../api/openapi/registry.js';

/**
 * Every answer of an in-process API (appOnStores, so every test that starts one with
 * startTestApi or startApiOnStores) checked against the OpenAPI document (docs/api.md,
 * "OpenAPI"): the status must be one the document gives for the route, and a JSON body must
 * match the schema of that status. An answer that does not is replaced by a 500 naming the route,
 * the status and what did not match, so the test that got it fails and says why. Paths the
 * document does not have (an unknown path, a route not declared yet) are left to the coverage
 * test (test/unit/openapi/document.test.ts); non-JSON bodies (streams, CSV, the dashboard) are
 * checked for their status only.
 */

interface Operation {
  method: string;
  pattern: RegExp;
  /** Static segments count: /api/exports/traces wins over /api/exports/{id}. */
  specificity: number;
  path: string;
  statuses: Set<string>;
}

let checker: { operations: Operation[]; validate(path: string, method: string, status: string): ValidateFunction | undefined } | undefined;

function buildChecker() {
  const doc: OpenApiDocument = buildOpenApiDocument(API_ROUTES, { version: 'test' });
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'openapi.json', ...doc, $schema: undefined });
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(item)) {
      const statuses = new Set(Object.keys((op as { responses: Record<string, unknown> }).responses));
      operations.push({ method: method.toUpperCase(), pattern, specificity: path.split('/').filter((s) => s && !s.startsWith('{')).length, path, statuses });
    }
  }
  operations.sort((a, b) => b.specificity - a.specificity);
  const compiled = new Map<string, ValidateFunction | undefined>();
  const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  return {
    operations,
    validate(path: string, method: string, status: string) {
      const key = `${method} ${path} ${status}`;
      if (!compiled.has(key)) {
        const op = doc.paths[path][method.toLowerCase()] as { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };
        const schema = op.responses[status]?.content?.['application/json']?.schema;
        const ref = `openapi.json#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
        compiled.set(key, schema ? ajv.compile({ $ref: ref }) : undefined);
      }
      return compiled.get(key);
    },
  };
}

/** What is wrong with this answer by the document, or undefined when nothing is (or the path is not documented). */
export function openApiMismatch(method: string, pathname: string, status: number, body: unknown): string | undefined {
  checker ??= buildChecker();
  const op = checker.operations.find((o) => o.method === method && o.pattern.test(pathname));
  if (!op) return undefined;
  const name = `${method} ${op.path}`;
  if (!op.statuses.has(String(status))) return `${name} answered ${status}, which the document does not list (${[...op.statuses].join(', ')})`;
  const isJson = body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
  if (!isJson) return undefined;
  const validate = checker.validate(op.path, method, String(status));
  if (!validate || validate(JSON.parse(JSON.stringify(body)))) return undefined;
  const problems = (validate.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  return `${name} ${status}: the answer does not match the document: ${problems.join('; ')}`;
}

/** Puts the check in front of `app`'s middleware (it sees the final status and body, error bodies included). */
export function checkAnswersAgainstOpenApi(app: Koa): void {
  // Built now (about a second), not in the first request a test may time; health's schemas too (tests time it to the millisecond).
  checker ??= buildChecker();
  for (const status of ['200', '503']) checker.validate('/api/health', 'GET', status);
  app.middleware.unshift(async (ctx: Context, next: Next) => {
    await next();
    if (ctx.method === 'HEAD' || ctx.respond === false) return;
    const mismatch = openApiMismatch(ctx.method, ctx.path, ctx.status, ctx.body);
    if (!mismatch) return;
    process.stderr.write(`OPENAPI MISMATCH: ${mismatch}\n`);
    ctx.status = 500;
    ctx.body = { error: 'The answer does not match the OpenAPI document', code: 'OPENAPI_MISMATCH', status: 500, details: mismatch };
  });
}

/**
 * The same check on an answer a test fetched over HTTP (test/helpers/server.ts, `api()`: the
 * whole service's answers too, which no in-process middleware sees): throws naming what does not
 * match. Reads a clone of a JSON answer; other bodies are checked for their status only.
 */
export async function expectAnswerMatchesOpenApi(method: string, url: string, res: Response): Promise<void> {
  if (method === 'HEAD') return;
  const pathname = new URL(url).pathname;
  let body: unknown;
  if ((res.headers.get('content-type') ?? '').includes('application/json') && res.status !== 204) {
    try {
      body = JSON.parse(await res.clone().text());
    } catch {
      body = undefined;
    }
  }
  const mismatch = openApiMismatch(method, pathname, res.status, body);
  if (mismatch) throw new Error(`OPENAPI MISMATCH: ${mismatch}`);
}
