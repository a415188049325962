import type { SuiteDefinition, SuiteSummary } from '../core/model/suite.js';
import type { AgentEvalClient } from '../sdk/client.js';
import { ServiceApiError } from '../sdk/errors.js';
import { isNotFound } from './client.js';
import { CliError } from './io.js';

export type PushOutcome = 'created' | 'updated' | 'unchanged';

/** JSON with sorted keys and without null or undefined fields: two definitions that mean the same compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** The definition as the service would store it: `agent_id` is stored as the agent's id, not its name. */
async function asStored(client: AgentEvalClient, def: SuiteDefinition): Promise<SuiteDefinition> {
  if (!def.agent_id) return def;
  try {
    return { ...def, agent_id: (await client.agents.get(def.agent_id)).id };
  } catch (err) {
    if (isNotFound(err)) return def;
    throw err;
  }
}

/** A 422 of a suite write reads as the SPEC's `Invalid suite file: {errors}`. */
function invalidSuite(err: unknown): never {
  if (err instanceof ServiceApiError && (err.status === 422 || err.code === 'NAME_REQUIRED' || err.code === 'INVALID_SUITE_FILE')) {
    const details = (err.body as { details?: unknown; error?: string } | undefined)?.details;
    const text = Array.isArray(details)
      ? (details as Array<{ field?: string; message?: string }>).map((d) => `${d.field ?? '(body)'}: ${d.message ?? ''}`).join('; ')
      : ((err.body as { error?: string } | undefined)?.error ?? err.message);
    throw new CliError(`Invalid suite file: ${text}`);
  }
  throw err;
}

/**
 * Makes the service hold this definition as the latest version of the suite of its name:
 * creates the suite, writes a new version when the definition changed, or leaves it alone when
 * the latest version is the same (so running a suite in CI does not add a version per build).
 */
export async function pushSuite(client: AgentEvalClient, def: SuiteDefinition): Promise<{ suite: SuiteSummary; outcome: PushOutcome }> {
  try {
    const existing = await client.suites.findByName(def.name);
    if (!existing) return { suite: await client.suites.create(def), outcome: 'created' };
    const latest = await client.suites.get(existing.id);
    if (canonical(latest.definition) === canonical(await asStored(client, def))) return { suite: existing, outcome: 'unchanged' };
    return { suite: await client.suites.update(existing.id, def), outcome: 'updated' };
  } catch (err) {
    return invalidSuite(err);
  }
}

/** The live suite of this exact name; `Suite not found: {name}` otherwise. */
export async function findSuite(client: AgentEvalClient, name: string): Promise<SuiteSummary> {
  const suite = await client.suites.findByName(name);
  if (!suite) throw new CliError(`Suite not found: ${name}`, 'agent-eval suites list shows the suites of the project.');
  return suite;
}
