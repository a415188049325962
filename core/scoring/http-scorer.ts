import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { EgressRefusedError, isRedirect, type EgressFetch } from '../egress/fetch.js';
import type { CustomScorerRecord } from '../model/custom-scorer.js';
import type { ScoreDetail } from '../model/eval-case.js';
import { extendRegistry } from './registry.js';
import { messageOf } from './rules/support.js';
import type { Scorer, ScorerRegistry } from './scorer.js';
import { traceView } from './trace-view.js';
import { verdictToDetail } from './verdict.js';

/** Largest answer read from a custom scorer. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Attempts per scoring when the endpoint is unreachable or answers 429, 502, 503 or 504 (STYLE 7). */
const ATTEMPTS = 3;
const RETRY_STATUS = new Set([429, 502, 503, 504]);

export interface HttpScorerOptions {
  /** Time-out of one call to the endpoint. */
  timeoutMs: number;
  /** How calls are sent: through the service's egress policy (core/egress). */
  fetch: EgressFetch;
}

class Retryable extends Error {}

async function callOnce(record: CustomScorerRecord, body: string, opts: HttpScorerOptions, signal?: AbortSignal): Promise<ScoreDetail> {
  let res: Response;
  try {
    res = await opts.fetch(record.endpoint, {
      method: 'POST',
      headers: { ...record.headers, 'content-type': 'application/json', accept: 'application/json' },
      body,
      signal: AbortSignal.any([AbortSignal.timeout(opts.timeoutMs), ...(signal ? [signal] : [])]),
    });
  } catch (err) {
    signal?.throwIfAborted();
    // Nothing was sent: trying again would be refused again.
    if (err instanceof EgressRefusedError) throw new Error(`custom scorer '${record.name}' endpoint refused by the egress policy: ${err.reason}`);
    const timedOut = (err as { name?: string }).name === 'TimeoutError';
    throw new Retryable(
      timedOut
        ? `custom scorer '${record.name}' did not answer within ${opts.timeoutMs} ms`
        : `custom scorer '${record.name}' unreachable: ${messageOf((err as { cause?: unknown }).cause ?? err)}`,
    );
  }
  if (isRedirect(res.status)) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`custom scorer '${record.name}' answered ${res.status}, a redirect (not followed)`);
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_ANSWER_BYTES) throw new Error(`custom scorer '${record.name}' answer exceeds ${MAX_ANSWER_BYTES} bytes`);
  const text = await res.text();
  if (!res.ok) {
    const message = `custom scorer '${record.name}' answered ${res.status}: ${text.slice(0, 300)}`;
    throw RETRY_STATUS.has(res.status) ? new Retryable(message) : new Error(message);
  }
  if (text.length > MAX_ANSWER_BYTES) throw new Error(`custom scorer '${record.name}' answer exceeds ${MAX_ANSWER_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`custom scorer '${record.name}' answered something that is not JSON: ${text.slice(0, 200)}`);
  }
  return verdictToDetail(json, { who: `custom scorer '${record.name}'`, dataType: record.data_type });
}

/**
 * A custom scorer served over HTTP: `POST {endpoint}` with `{input, output, expected, trace,
 * config, scorer}` and its registered headers; the answer `{value | score, reason, evidence?}`
 * is the verdict (`boolean` data type: true/false are 1/0). Unreachable endpoints and 429, 502,
 * 503, 504 are tried again (3 attempts in all); any other failure throws, which the run records
 * as the scorer's 0 with the error as the reason. Calls go through the egress policy: a refused
 * endpoint is never called, and a redirect is a failure, not followed.
 */
export function createHttpScorer(record: CustomScorerRecord, opts: HttpScorerOptions): Scorer {
  return {
    name: record.name,
    kind: 'custom',
    description: record.description ?? `HTTP custom scorer at ${record.endpoint}`,
    // Passed to the endpoint as it is: the scorer's own business.
    configSchema: z.record(z.string(), z.unknown()),
    async evaluate(input, signal) {
      const body = JSON.stringify({
        input: input.input,
        output: input.output ?? null,
        expected: input.expected,
        trace: traceView(input),
        config: input.config,
        scorer: record.name,
      });
      for (let attempt = 1; ; attempt++) {
        try {
          return await callOnce(record, body, opts, signal);
        } catch (err) {
          if (!(err instanceof Retryable) || attempt >= ATTEMPTS) throw err instanceof Retryable ? new Error(err.message) : err;
          await sleep(250 * 4 ** (attempt - 1), undefined, signal ? { signal } : undefined);
        }
      }
    },
  };
}

/** `base` plus a project's HTTP custom scorers: the registry suites, runs and the worker use for that project. */
export async function projectRegistry(
  base: ScorerRegistry,
  store: { allForCall(projectId: string): Promise<CustomScorerRecord[]> },
  projectId: string,
  opts: HttpScorerOptions,
): Promise<ScorerRegistry> {
  const records = await store.allForCall(projectId);
  return extendRegistry(
    base,
    records.map((record) => createHttpScorer(record, opts)),
  );
}
