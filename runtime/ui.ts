import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from '../core/logger.js';
import type { UiHandler, UiSource } from '../api/ui.js';
import { errorMessage } from '../core/errors.js';
import { packagePath } from '../core/os/package-files.js';

/** adapter-node's output: `npm run build` (scripts/build-ui.ts) writes it. */
export const DEFAULT_UI_BUILD_DIR = packagePath('ui/build/');

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

/**
 * The dashboard for the API, never blocking it: the build there is served at once; with `build`
 * (`agent-eval serve --build-ui`, which `npm start` runs) a missing or stale build is made in the
 * background (scripts/build-ui.ts, a vite child process). A missing one is handed to the API when
 * it finishes (dashboard paths answer 503 "being built" until then); a stale one keeps being
 * served, and the new build is served from the next start.
 */
export async function openUi(logger: Logger, opts: { build: boolean }): Promise<UiSource> {
  if (!opts.build) return { handler: await loadUiHandler(logger) };
  const { ensureUiBuild, staleReason } = await import('../scripts/build-ui.js');
  let reason: string | null;
  try {
    reason = staleReason();
  } catch (err) {
    logger.warn({ err: errorMessage(err) }, 'cannot tell whether the dashboard build is current; serving what is built');
    return { handler: await loadUiHandler(logger) };
  }
  const missing = !fs.existsSync(path.join(DEFAULT_UI_BUILD_DIR, 'handler.js'));
  const ui: UiSource = { handler: missing ? null : await loadUiHandler(logger), building: reason !== null && missing };
  if (reason === null) return ui;
  logger.info(
    { reason },
    missing
      ? 'building the dashboard in the background; the API answers meanwhile'
      : 'rebuilding the stale dashboard in the background; the current build is served until the next start',
  );
  void ensureUiBuild((line) => logger.info(line))
    .then(async () => {
      if (missing) ui.handler = await loadUiHandler(logger);
      else logger.info('dashboard rebuilt: restart the service to serve the new build');
    })
    .catch((err: unknown) =>
      logger.error({ err: errorMessage(err) }, 'the dashboard could not be built; the API is served without it (run `npm run build` to see why)'),
    )
    .finally(() => {
      ui.building = false;
    });
  return ui;
}
