import { z } from 'zod';
import { HealthSchema } from '../../../core/model/answers.js';
import { AuthStateSchema, SessionViewSchema } from '../../../core/model/answers-admin.js';
import { KeySignInSchema } from '../../routes/auth.js';
import { defineRoutes, NoContent, routeGroup } from '../route-spec.js';

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

const ingestRoutes = routeGroup('Traces', 'traces:write');
const healthRoutes = routeGroup('Health', 'public');
const authRoutes = routeGroup('Auth', 'public');

export const OPEN_ROUTES = defineRoutes([
  ingestRoutes.post('/v1/traces', 'otlpExportTraces', 'OTLP/HTTP trace export (protobuf or JSON, gzip or identity)', {
    description:
      'The OpenTelemetry Protocol receiver (docs/api.md, "OTLP"): the same API keys, `x-project-id` or the `project` query parameter. Errors are google.rpc.Status in the encoding of the request.',
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
  }),
  healthRoutes.get('/api/health', 'health', 'Health of the service and its stores', { answers: { 200: HealthSchema, 503: HealthSchema } }),
  healthRoutes.get('/api/openapi.json', 'openApiDocument', 'This OpenAPI 3.1 document', { answers: { 200: OpenApiDocumentSchema } }),
  healthRoutes.get('/metrics', 'metrics', 'Prometheus metrics (their own credentials: docs/operations.md)', {
    answers: { 200: { contentType: 'text/plain', description: 'Prometheus text exposition format' } },
    errors: [401, 403],
  }),
  authRoutes.get('/api/auth/session', 'authSession', "The dashboard's session: who is signed in and how sign-in works here", {
    answers: { 200: AuthStateSchema },
  }),
  authRoutes.post('/api/auth/key', 'signInWithKey', 'Sign in to the dashboard with an API key (sets the session cookie)', {
    body: KeySignInSchema,
    answers: { 200: SessionViewSchema },
    errors: [401, 403, 422, 429],
  }),
  authRoutes.get('/api/auth/oidc/start', 'oidcStart', 'Start an OIDC sign-in (redirects to the identity provider)', {
    answers: { 302: { description: 'Redirect to the identity provider, or to /signin with an error' } },
    errors: [404],
  }),
  authRoutes.get('/api/auth/oidc/callback', 'oidcCallback', "The identity provider's redirect back (sets the session cookie)", {
    answers: { 302: { description: 'Redirect to the page the sign-in started from, or to /signin with an error' } },
    errors: [404],
  }),
  authRoutes.post('/api/auth/sign-out', 'signOut', "End the dashboard's session", { answers: { 204: NoContent }, errors: [403] }),
]);
