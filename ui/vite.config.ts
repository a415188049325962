import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

/** `npx vite dev` in ui/ proxies the API to a running `npm start` (AGENT_EVAL_API, default :3000). */
const api = process.env.AGENT_EVAL_API ?? 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [sveltekit()],
  server: { proxy: { '/api': api, '/v1': api, '/metrics': api } },
  build: { chunkSizeWarningLimit: 400 },
});
