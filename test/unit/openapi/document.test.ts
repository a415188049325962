import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument } from '../../../api/openapi/document.js';
import { API_ROUTES } from '../../../api/openapi/registry.js';
import { openApiPath, routerRoutes } from '../../helpers/api-routes.js';

/**
 * The OpenAPI document (docs/api.md, "OpenAPI"): a valid OpenAPI 3.1 document by a real
 * validator, and the same routes as the routers hold, both ways: a route added to a router and
 * not declared in api/openapi/registry.ts fails here, and so does a declaration of no route.
 */

const doc = buildOpenApiDocument(API_ROUTES, { version: 'test' });

/** The reference page and its files are HTML for people, not the API. */
const NOT_API = (path: string) => path === '/api-reference' || path.startsWith('/api-reference/');

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every route of the routers, and no route they do not have', () => {
    const routes = routerRoutes().filter((r) => !NOT_API(r.path));
    // A catch-all (router.all) answers the methods its path does not serve: its path must be documented, not each method.
    const routed = new Set(routes.filter((r) => !r.all).map((r) => `${r.method} ${openApiPath(r.path)}`));
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
    expect(routes.filter((r) => r.all && !doc.paths[openApiPath(r.path)]).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect([...routed].filter((r) => !documented.has(r)).sort(), 'routes missing from api/openapi/registry.ts').toEqual([]);
    expect([...documented].filter((d) => !routed.has(d)).sort(), 'declared routes no router has').toEqual([]);
  });

  it('names each path parameter as the router does', () => {
    for (const route of routerRoutes().filter((r) => !NOT_API(r.path) && !r.all)) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()] as { parameters?: Array<{ in: string; name: string }> } | undefined;
      if (!op) continue; // reported by the test above
      const inPath = (op?.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      expect(inPath, `${route.method} ${route.path}`).toEqual(route.params);
    }
  });

  it("answers every authenticated route's errors with the SPEC's error body and names its permission", () => {
    const op = doc.paths['/api/traces/{traceId}'].get as {
      responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
      'x-permission': string;
    };
    expect(op.responses['404'].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    expect(op.responses['401'].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    expect(op['x-permission']).toBe('traces:read');
    expect((doc.paths['/api/health'].get as { security: unknown[] }).security).toEqual([]);
  });

  it('documents the query a route validates as its parameters', () => {
    const op = doc.paths['/api/traces'].get as { parameters: Array<{ name: string; in: string; required: boolean }> };
    const query = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    expect(query).toEqual(expect.arrayContaining(['limit', 'offset', 'status', 'cursor', 'session_id', 'score_name']));
    expect(op.parameters.every((p) => p.required === false)).toBe(true);
  });
});
