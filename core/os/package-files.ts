import { fileURLToPath } from 'node:url';

/**
 * Where the package's own files are, whether the code runs from its TypeScript sources (tsx,
 * vitest, `npm run dev`) or compiled into dist/ (`npm start`, the container, the published
 * package). Compiled code lives one level deeper (dist/core/os/package-files.js), so a path
 * relative to a module would point into dist/ for files that are not compiled (migrations/,
 * proto/, ui/build/, scripts/temporal.sh, core/cost/prices.json): resolve them from here.
 */
export const RUNNING_FROM_SOURCES = import.meta.url.endsWith('.ts');

const PACKAGE_ROOT = new URL(RUNNING_FROM_SOURCES ? '../../' : '../../../', import.meta.url);

/** A file or directory of the package (its root holds package.json), as a path: `packagePath('migrations/')`. */
export function packagePath(relative: string): string {
  return fileURLToPath(new URL(relative, PACKAGE_ROOT));
}

/**
 * A module of the package next to the calling one, by its name without extension: the `.ts`
 * source when running from the sources, the compiled `.js` from dist/ (for files loaded by
 * path, not imported: a worker thread's entry, the Temporal workflow bundle's sources).
 */
export function siblingModule(callerUrl: string, name: string): URL {
  return new URL(`./${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl);
}
