import adapter from '@sveltejs/adapter-node';

/** The dashboard: client-rendered pages (ssr is off in the root layout) served by adapter-node's handler inside the API's Koa app. */
export default {
  kit: {
    adapter: adapter({ out: 'build', precompress: false }),
    // The build is served by runtime/ui.ts at the site root, next to /api, /v1 and /metrics.
    appDir: '_app',
  },
};
