import { z } from 'zod';
import type { Permission } from '../../core/principal.js';

/**
 * How one route of the service declares itself for the OpenAPI document (docs/architecture.md,
 * "How a route declares itself"): method, path, who may call it, the zod schemas of its query
 * and body (the very objects the route passes to `validate()`, imported from the route's module
 * or core/model) and of its answers. api/openapi/registry.ts lists every declaration;
 * api/openapi/document.ts builds the document from that list alone, and
 * test/unit/openapi/document.test.ts checks the list against the routers (every route declared,
 * every declaration a route).
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call: `public` (no credentials), `authenticated` (any valid credential; the route
 * decides the rest), `server-admin`, or the permission the route requires (core/principal.ts).
 */
export type RouteAccess = 'public' | 'authenticated' | 'server-admin' | Permission;

/** An answer that is not a JSON object the document describes with a zod schema. */
export interface OtherAnswer {
  /** The media type (`text/csv`, `application/x-ndjson`, ...); absent: no body (204, a redirect). */
  contentType?: string;
  description: string;
}

/** One answer: a zod schema of its JSON body, or another kind of body. */
export type Answer = z.ZodType | OtherAnswer;

export interface RouteSpec {
  method: HttpMethod;
  /** The full path in OpenAPI's form: `/api/traces/{traceId}` (the router's `:traceId`). */
  path: string;
  /** Unique across the document; the SDK's name for the call where it has one. */
  operationId: string;
  summary: string;
  description?: string;
  /** The group the reference page shows it under. */
  tag: string;
  access: RouteAccess;
  /** Path parameters that are not plain strings (a case index): their schema. Others are strings. */
  params?: Record<string, z.ZodType>;
  /** The query's zod schema: the route validates `ctx.query` with it. */
  query?: z.ZodType;
  /** The JSON body's zod schema: the route validates `ctx.request.body` with it. */
  body?: z.ZodType;
  /** The body may be left out (the route reads `body ?? {}`). */
  bodyOptional?: boolean;
  /** Other media types the body may come as (a suite's YAML text). */
  bodyMediaTypes?: Record<string, { description: string }>;
  /** The answers by status: the success ones (2xx, 3xx) and any 4xx with a body other than the SPEC's error body. */
  answers: Record<number, Answer>;
  /** Error statuses beyond those every route may answer (401, 403, 422, 429, 500, 503 when authenticated; 400, 500 otherwise). */
  errors?: number[];
  /** Takes an `Idempotency-Key` header (docs/api.md, "Retries"). */
  idempotent?: boolean;
}

/** The routes of one area: checks at compile time, nothing at run time. */
export function defineRoutes(routes: RouteSpec[]): RouteSpec[] {
  return routes;
}

/** What a route declares beyond its method, path, operationId and summary; tag and access default to its group's. */
export type RouteFields = Omit<RouteSpec, 'method' | 'path' | 'operationId' | 'summary' | 'tag' | 'access'> & Partial<Pick<RouteSpec, 'tag' | 'access'>>;

type DeclareRoute = (path: string, operationId: string, summary: string, fields: RouteFields) => RouteSpec;

/** A group's usual access: one for every method, or one for reads (GET) and one for writes (the other methods). */
export type GroupAccess = RouteAccess | { read: RouteAccess; write: RouteAccess };

/**
 * Routes of one tag, most of them with the group's access, declared a line each:
 * `runs.get('/api/runs/{id}', 'getRun', 'A run', { answers: { 200: RunViewSchema }, errors: [404] })`.
 * `shared` holds fields every route of the group has unless it says otherwise (the routes of one
 * resource by id: `{ errors: [404] }`). A route's own fields, `tag` and `access` among them, win
 * over the group's.
 */
export function routeGroup(tag: string, access: GroupAccess, shared: Partial<RouteFields> = {}): Record<HttpMethod, DeclareRoute> {
  const accessOf = (method: HttpMethod): RouteAccess => (typeof access === 'string' ? access : method === 'get' ? access.read : access.write);
  const declare =
    (method: HttpMethod): DeclareRoute =>
    (path, operationId, summary, fields) => ({ method, path, operationId, summary, tag, access: accessOf(method), ...shared, ...fields });
  return { get: declare('get'), post: declare('post'), put: declare('put'), patch: declare('patch'), delete: declare('delete') };
}

/** An answer with no body. */
export const NoContent: OtherAnswer = { description: 'No content' };
