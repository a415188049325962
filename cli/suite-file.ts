import fs from 'node:fs';
import path from 'node:path';
import { loadSuite, type Suite } from '../sdk/suites.js';

/**
 * Whether a `run` / `compare --suite` argument names a file rather than a stored suite: it
 * exists, or it looks like a path (a separator or an extension). Suite names are free text, so
 * `weather` is a name and `weather.yaml` or `./weather` a file.
 */
export function looksLikeFile(arg: string): boolean {
  return fs.existsSync(arg) || arg.includes('/') || arg.includes(path.sep) || path.extname(arg) !== '';
}

/**
 * A suite file read by the SDK's loadSuite, i.e. the service's one parser and schema: the SPEC's
 * `File not found: {file}`, `Suite must be a YAML file: {suite}` and `Invalid suite file: {errors}`
 * come from there, the same for the CLI, the SDK and the API.
 */
export function loadSuiteFile(file: string): Promise<Suite> {
  return loadSuite(file);
}
