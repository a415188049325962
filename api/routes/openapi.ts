import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import { buildOpenApiDocument, type OpenApiDocument } from '../openapi/document.js';
import { API_ROUTES } from '../openapi/registry.js';

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document, built from the route declarations
 * (api/openapi/registry.ts) once per process; public, as Langfuse's and other peers' documents
 * are (it says what the API takes, never what a project holds). GET /api-reference: an
 * interactive reference page over it (Swagger UI from the swagger-ui-dist package, served from
 * this process: no CDN), on the service's port, where the dashboard is (docs/api.md, "OpenAPI").
 */

/** The reference page's policy: its own scripts and styles (Swagger UI sets inline styles), calls to this origin only. */
export const REFERENCE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent-eval API reference</title>
<link rel="stylesheet" href="/api-reference/swagger-ui.css">
<link rel="icon" href="/api-reference/favicon-32x32.png">
</head>
<body>
<div id="reference"></div>
<script src="/api-reference/swagger-ui-bundle.js"></script>
<script src="/api-reference/init.js"></script>
</body>
</html>
`;

/** Swagger UI over this service's document; "Try it out" calls this origin with the dashboard's session cookie, or a key given under Authorize. */
const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  withCredentials: true,
  displayOperationId: true,
  docExpansion: 'none',
  filter: true,
});
`;

/** The files of swagger-ui-dist the page loads. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

function assetDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

export function openApiRouter(opts: { version: string }): Router {
  const router = new Router();
  let document: OpenApiDocument | undefined;
  const assets = new Map<string, Buffer>();

  router.get('/api/openapi.json', (ctx) => {
    document ??= buildOpenApiDocument(API_ROUTES, { version: opts.version });
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = document;
  });

  router.get('/api-reference', (ctx) => {
    ctx.set('Content-Security-Policy', REFERENCE_CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });

  router.get('/api-reference/init.js', (ctx) => {
    ctx.type = ASSETS['swagger-ui-bundle.js'];
    ctx.body = INIT;
  });

  router.get('/api-reference/:file', (ctx, next) => {
    const type = ASSETS[ctx.params.file];
    if (!type) return next();
    let body = assets.get(ctx.params.file);
    if (!body) {
      body = readFileSync(path.join(assetDir(), ctx.params.file));
      assets.set(ctx.params.file, body);
    }
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = type;
    ctx.body = body;
  });

  return router;
}
