import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import adapter from '@sveltejs/adapter-node';

/** app.html's own inline script (the early session request), allowed by its sha256 like the app's start script. */
const appHtml = readFileSync(new URL('./src/app.html', import.meta.url), 'utf8');
const inlineScripts = [...appHtml.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}`);

/** The dashboard: client-rendered pages (ssr is off in the root layout) served by adapter-node's handler inside the API's Koa app. */
export default {
  kit: {
    adapter: adapter({ out: 'build', precompress: false }),
    // The build is served by runtime/ui.ts at the site root, next to /api, /v1 and /metrics.
    appDir: '_app',
    // Split, but into few files: vite.config.ts puts the code the pages share in one chunk and each
    // page's own in its file, so a cold page fetches ~6 scripts and compiles only what it shows
    // (docs/benchmarks.md, issue 32; 'single', one 800 KiB script for every page, took ~250 ms to compile).
    output: { bundleStrategy: 'split' },
    // Every page's Content-Security-Policy header (docs/security.md, "Security headers"). Each page
    // starts the app with one inline script; `hash` adds its sha256 to script-src, so no
    // 'unsafe-inline' is needed for scripts. Styles keep 'unsafe-inline': Svelte writes `style`
    // attributes (app.html's wrapper, `style="width: …"` bindings), which a hash cannot allow.
    csp: {
      mode: 'hash',
      directives: {
        'default-src': ['self'],
        'script-src': ['self', ...inlineScripts],
        'style-src': ['self', 'unsafe-inline'],
        // app.html's empty favicon (`data:,`): no request for /favicon.ico.
        'img-src': ['self', 'data:'],
        'font-src': ['self'],
        'connect-src': ['self'],
        'object-src': ['none'],
        'base-uri': ['none'],
        'form-action': ['self'],
        'frame-ancestors': ['none'],
      },
    },
  },
};
