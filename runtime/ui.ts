import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from '../core/logger.js';
import type { UiHandler } from '../api/ui.js';

/** adapter-node's output: `npm run build` (scripts/build-ui.ts) writes it. */
export const DEFAULT_UI_BUILD_DIR = fileURLToPath(new URL('../ui/build/', import.meta.url));

/** The dashboard's request handler from a build, or null when there is none (the API then answers 503 on dashboard paths). */
export async function loadUiHandler(logger: Logger, buildDir = DEFAULT_UI_BUILD_DIR): Promise<UiHandler | null> {
  const file = path.join(buildDir, 'handler.js');
  if (!fs.existsSync(file)) {
    logger.warn({ dir: buildDir }, 'dashboard not built: run `npm run build`; the API is served without it');
    return null;
  }
  const mod = (await import(pathToFileURL(file).href)) as { handler: UiHandler };
  return mod.handler;
}
