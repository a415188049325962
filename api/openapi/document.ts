import { z } from 'zod';
import { ErrorBodySchema } from '../../core/model/error-body.js';
import type { Answer, OtherAnswer, RouteSpec } from './route-spec.js';

/**
 * The OpenAPI 3.1 document of the service, built from the route declarations alone
 * (api/openapi/registry.ts): request schemas are the zod schemas the routes validate with
 * (`z.toJSONSchema`, io `input`: what a client may send, defaults optional), answers the zod
 * schemas of what they answer (io `output`). A schema with a zod `id` (`.meta({id})`) becomes a
 * shared component under `#/components/schemas`. Nothing in it is written by hand but the prose.
 */

type Json = Record<string, unknown>;
export type OpenApiDocument = Json & { openapi: string; paths: Record<string, Record<string, Json>>; components: Json };

const SCHEMA_OPTS = { unrepresentable: 'any', target: 'draft-2020-12', cycles: 'ref', reused: 'inline' } as const;

/** The statuses every route may answer with the SPEC's error body (docs/api.md, "Errors"). */
const COMMON_ERRORS: Record<string, number[]> = {
  public: [400, 422, 500],
  authenticated: [400, 401, 403, 422, 429, 500, 503],
};
const BODY_ERRORS = [413, 415];
const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request (SPEC general error body)',
  401: 'Missing or invalid credentials',
  403: 'The caller lacks the permission, or the project is archived or deleted',
  404: 'Not found (SPEC reference error body)',
  409: 'Conflict with the current state',
  413: 'Body too large',
  415: 'Unsupported media type',
  422: 'Validation error: one {field, message} per problem',
  429: 'Rate limited (Retry-After)',
  500: 'Internal error',
  503: 'A store or the workflow engine is unavailable (Retry-After)',
};

const isOther = (a: Answer): a is OtherAnswer => !(a instanceof z.ZodType);

/** Collects the schemas of the document and their shared components. */
class Schemas {
  readonly components: Record<string, Json> = {};

  /** The JSON Schema of `schema` for `io`, its `$defs` moved to components (a different input form gets the suffix `Input`). */
  of(schema: z.ZodType, io: 'input' | 'output'): Json {
    const json = z.toJSONSchema(schema, { ...SCHEMA_OPTS, io }) as Json;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    const names = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) {
      let name = id;
      const text = JSON.stringify(def);
      if (this.components[name] && JSON.stringify(this.components[name]) !== text) name = `${id}Input`;
      if (this.components[name] && JSON.stringify(this.components[name]) !== text) throw new Error(`two different schemas with the id ${id}`);
      names.set(id, name);
    }
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!node || typeof node !== 'object') return node;
      const out: Json = {};
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) out[k] = `#/components/schemas/${names.get(v.slice(8)) ?? v.slice(8)}`;
        else if (k === '$ref' && v === '#') throw new Error('a recursive schema needs an id (.meta({id}))');
        else out[k] = rewrite(v);
      }
      return out;
    };
    for (const [id, def] of Object.entries(defs)) this.components[names.get(id)!] = rewrite(def) as Json;
    const root = rewrite(json) as Json;
    // A root schema with an id is itself a component.
    const id = z.globalRegistry.get(schema)?.id;
    if (id && !('$ref' in root)) {
      const name = this.components[id] && JSON.stringify(this.components[id]) !== JSON.stringify(root) ? `${id}Input` : id;
      this.components[name] = root;
      return { $ref: `#/components/schemas/${name}` };
    }
    return root;
  }
}

/** `/api/traces/{traceId}`'s parameter names. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

function parameters(route: RouteSpec, schemas: Schemas): Json[] {
  const out: Json[] = pathParams(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: route.params?.[name] ? schemas.of(route.params[name], 'input') : { type: 'string' },
  }));
  if (route.query) {
    const query = schemas.of(route.query, 'input');
    const props = objectProperties(query, schemas);
    const required = new Set(objectRequired(query, schemas));
    for (const [name, schema] of Object.entries(props)) {
      const param: Json = { name, in: 'query', required: required.has(name), schema };
      if (typeof schema.description === 'string') param.description = schema.description;
      out.push(param);
    }
  }
  return out;
}

/** The properties of an object schema, through `allOf` (an intersection) and a component $ref. */
function objectProperties(schema: Json, schemas: Schemas): Record<string, Json> {
  const resolved = resolve(schema, schemas);
  const props: Record<string, Json> = { ...((resolved.properties ?? {}) as Record<string, Json>) };
  for (const part of (resolved.allOf ?? []) as Json[]) Object.assign(props, objectProperties(part, schemas));
  return props;
}
function objectRequired(schema: Json, schemas: Schemas): string[] {
  const resolved = resolve(schema, schemas);
  return [...((resolved.required ?? []) as string[]), ...((resolved.allOf ?? []) as Json[]).flatMap((p) => objectRequired(p, schemas))];
}
function resolve(schema: Json, schemas: Schemas): Json {
  const ref = schema.$ref;
  return typeof ref === 'string' ? resolve(schemas.components[ref.split('/').pop()!], schemas) : schema;
}

function answer(status: number, a: Answer, schemas: Schemas): Json {
  if (isOther(a)) return a.contentType ? { description: a.description, content: { [a.contentType]: {} } } : { description: a.description };
  const schema = schemas.of(a, 'output');
  const description = (a.description ?? (status < 300 ? 'OK' : ERROR_TEXT[status])) || 'Answer';
  return { description, content: { 'application/json': { schema } } };
}

const errorAnswer = (status: number): Json => ({
  description: ERROR_TEXT[status] ?? 'Error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
});

function operation(route: RouteSpec, schemas: Schemas): Json {
  const op: Json = { operationId: route.operationId, summary: route.summary, tags: [route.tag] };
  if (route.description) op.description = route.description;
  const params = parameters(route, schemas);
  if (route.idempotent) params.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } });
  if (params.length) op.parameters = params;
  if (route.body || route.bodyMediaTypes) {
    const content: Json = route.body ? { 'application/json': { schema: schemas.of(route.body, 'input') } } : {};
    for (const [type, { description }] of Object.entries(route.bodyMediaTypes ?? {})) content[type] = { schema: { type: 'string', description } };
    op.requestBody = { required: !route.bodyOptional, content };
  }
  const responses: Json = {};
  for (const [status, a] of Object.entries(route.answers)) responses[status] = answer(Number(status), a, schemas);
  const common = [...(route.access === 'public' ? COMMON_ERRORS.public : COMMON_ERRORS.authenticated)];
  // A body is read by one reader (api/middleware/json-body.ts): too large, or not JSON (YAML where the route takes it).
  if (route.method !== 'get' && route.method !== 'delete') common.push(...BODY_ERRORS);
  for (const status of [...new Set([...common, ...(route.errors ?? [])])].sort()) responses[String(status)] ??= errorAnswer(status);
  op.responses = responses;
  if (route.access === 'public') op.security = [];
  else {
    op['x-permission'] = route.access;
    if (route.access !== 'authenticated' && route.access !== 'server-admin')
      op.description = `${route.description ?? route.summary}\n\nNeeds the permission \`${route.access}\`.`;
    if (route.access === 'server-admin') op.description = `${route.description ?? route.summary}\n\nNeeds a server admin credential.`;
  }
  return op;
}

export interface DocumentOptions {
  version: string;
  /** The server's base URL where known (the document is served relative otherwise). */
  serverUrl?: string;
}

/** The document of `routes` (api/openapi/registry.ts: API_ROUTES). */
export function buildOpenApiDocument(routes: readonly RouteSpec[], opts: DocumentOptions): OpenApiDocument {
  const schemas = new Schemas();
  // The SPEC's error body: a component of its own (it has an id), which every error answer refers to.
  schemas.of(ErrorBodySchema, 'output');
  const paths: Record<string, Record<string, Json>> = {};
  const ids = new Set<string>();
  for (const route of routes) {
    if (ids.has(route.operationId)) throw new Error(`operationId ${route.operationId} declared twice`);
    ids.add(route.operationId);
    const item = (paths[route.path] ??= {});
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} declared twice`);
    item[route.method] = operation(route, schemas);
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'agent-eval API',
      version: opts.version,
      description:
        'The API of agent-eval: traces and spans, sessions, scores, agents, suites, eval runs, prompts, feedback, alerts, online evaluation, analytics and administration. Generated from the zod schemas the routes validate with (docs/api.md, "OpenAPI"). Every call but the public ones needs an API key (`x-api-key`), a bearer token, or the dashboard\'s session cookie; `x-project-id` names the project where the key reaches more than one.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: opts.serverUrl ?? '/' }],
    tags,
    security: [{ ApiKey: [] }, { BearerToken: [] }, { SessionCookie: [] }],
    paths,
    components: {
      schemas: schemas.components,
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A project API key (`ae_...`), docs/security.md.' },
        BearerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "An HS256 token signed with the server's JWT_SECRET (docs/security.md).",
        },
        SessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'agent-eval-session',
          description: "The dashboard's session (POST /api/auth/key or OIDC sign-in).",
        },
      },
    },
  };
}
