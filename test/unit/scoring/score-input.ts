import { ExpectedSchema } from '../../../core/model/eval-case.js';
import type { ScoreDetail } from '../../../core/model/eval-case.js';
import type { ScoreInput, Scorer } from '../../../core/scoring/scorer.js';

/** Runs `scorer` the way a run does: expected parsed by the case schema, config by the scorer's. */
export async function score(
  scorer: Scorer,
  output: unknown,
  expected: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
  extra: Partial<Omit<ScoreInput, 'output' | 'expected' | 'config'>> = {},
): Promise<ScoreDetail> {
  return scorer.evaluate({
    input: 'question',
    output,
    expected: ExpectedSchema.parse(expected),
    toolCalls: [],
    latencyMs: 10,
    config: scorer.configSchema.parse(config),
    ...extra,
  });
}
