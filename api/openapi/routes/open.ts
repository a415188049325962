import { z } from 'zod';
import { HealthSchema } from '../../../core/model/answers.js';
import { AuthStateSchema, SessionViewSchema } from '../../../core/model/answers-admin.js';
import { KeySignInSchema } from '../../routes/auth.js';
import { defineRoutes, NoContent } from '../route-spec.js';

/** This document itself: its top-level fields (the OpenAPI 3.1 specification says the rest). */
const OpenApiDocumentSchema = z.looseObject({
  openapi: z.string().regex(/^3\.1\./),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.looseObject({})),
  components: z.looseObject({}).optional(),
});

/** Open routes: OTLP/HTTP, health, metrics, this document, the dashboard's sign-in (api/openapi/registry.ts). */
/** OTLP/HTTP's answers and errors are OTLP's own (ExportTraceServiceResponse, google.rpc.Status), in the request's encoding. */
const otlpAnswer = (description: string) => ({ contentType: 'application/x-protobuf', description });

export const OPEN_ROUTES = defineRoutes([
  {
    method: 'post',
    path: '/v1/traces',
    operationId: 'otlpExportTraces',
    summary: 'OTLP/HTTP trace export (protobuf or JSON, gzip or identity)',
    description:
      'The OpenTelemetry Protocol receiver (docs/api.md, "OTLP"): the same API keys, `x-project-id` or the `project` query parameter. Errors are google.rpc.Status in the encoding of the request.',
    tag: 'Traces',
    access: 'traces:write',
    bodyMediaTypes: {
      'application/x-protobuf': { description: 'ExportTraceServiceRequest, protobuf' },
      'application/json': { description: 'ExportTraceServiceRequest, OTLP JSON' },
    },
    answers: {
      200: otlpAnswer('ExportTraceServiceResponse, with partial_success when some spans were rejected'),
      400: otlpAnswer('google.rpc.Status: an undecodable payload or no project'),
      401: otlpAnswer('google.rpc.Status: missing or invalid credentials'),
      403: otlpAnswer('google.rpc.Status: the key cannot write traces here'),
      413: otlpAnswer('google.rpc.Status: body too large'),
      415: otlpAnswer('google.rpc.Status: unsupported Content-Type or Content-Encoding'),
      429: otlpAnswer('google.rpc.Status: rate limited or buffer full (Retry-After)'),
      500: otlpAnswer('google.rpc.Status: internal error'),
      503: otlpAnswer('google.rpc.Status: a store is down (Retry-After)'),
    },
  },
  {
    method: 'get',
    path: '/api/health',
    operationId: 'health',
    summary: 'Health of the service and its stores',
    tag: 'Health',
    access: 'public',
    answers: { 200: HealthSchema, 503: HealthSchema },
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'openApiDocument',
    summary: 'This OpenAPI 3.1 document',
    tag: 'Health',
    access: 'public',
    answers: { 200: OpenApiDocumentSchema },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics (their own credentials: docs/operations.md)',
    tag: 'Health',
    access: 'public',
    answers: { 200: { contentType: 'text/plain', description: 'Prometheus text exposition format' } },
    errors: [401, 403],
  },
  {
    method: 'get',
    path: '/api/auth/session',
    operationId: 'authSession',
    summary: "The dashboard's session: who is signed in and how sign-in works here",
    tag: 'Auth',
    access: 'public',
    answers: { 200: AuthStateSchema },
  },
  {
    method: 'post',
    path: '/api/auth/key',
    operationId: 'signInWithKey',
    summary: 'Sign in to the dashboard with an API key (sets the session cookie)',
    tag: 'Auth',
    access: 'public',
    body: KeySignInSchema,
    answers: { 200: SessionViewSchema },
    errors: [401, 403, 422, 429],
  },
  {
    method: 'get',
    path: '/api/auth/oidc/start',
    operationId: 'oidcStart',
    summary: 'Start an OIDC sign-in (redirects to the identity provider)',
    tag: 'Auth',
    access: 'public',
    answers: { 302: { description: 'Redirect to the identity provider, or to /signin with an error' } },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/auth/oidc/callback',
    operationId: 'oidcCallback',
    summary: "The identity provider's redirect back (sets the session cookie)",
    tag: 'Auth',
    access: 'public',
    answers: { 302: { description: 'Redirect to the page the sign-in started from, or to /signin with an error' } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/auth/sign-out',
    operationId: 'signOut',
    summary: "End the dashboard's session",
    tag: 'Auth',
    access: 'public',
    answers: { 204: NoContent },
    errors: [403],
  },
]);
