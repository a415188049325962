import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig, type Plugin } from 'vite';

/** `npx vite dev` in ui/ proxies the API to a running `npm start` (AGENT_EVAL_API, default :3000). */
const api = process.env.AGENT_EVAL_API ?? 'http://127.0.0.1:3000';

/**
 * The browser's build in few files, each page fetching only its own code (docs/benchmarks.md, issue
 * 32): what two or more of Kit's entries (its start, its app, one per layout or page) import
 * statically, Svelte and Kit among it, is one chunk; what only one page imports stays in that
 * page's file; what is imported dynamically (chart.js for the analytics charts, the markdown
 * renderer and sanitizer of the trace page) is fetched when first used. A cold list or trace page
 * so fetches about six scripts, all named in its Link header as modulepreloads. Client build only:
 * the server's build keeps Vite's own splitting.
 */
function sharedChunkPerPageCode(): Plugin {
  return {
    name: 'agent-eval-shared-chunk',
    config(config) {
      if (config.build?.ssr) return;
      return { build: { rollupOptions: { output: { codeSplitting: { groups: [{ name: 'shared', tags: ['$initial'], minShareCount: 2 }] } } } } };
    },
  };
}

export default defineConfig({
  plugins: [sveltekit(), sharedChunkPerPageCode()],
  server: { proxy: { '/api': api, '/v1': api, '/metrics': api } },
  build: { chunkSizeWarningLimit: 400 },
});
