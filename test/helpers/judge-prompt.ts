import { expect } from 'vitest';
import type { FakeRequest } from './fake-providers.js';

/**
 * The judge's system prompt and message as the Anthropic wire carries them, after checking that
 * the system prompt holds each of `systemHas` (its criteria, its scale, what it asks of the reason).
 */
export function sent(req: FakeRequest, systemHas: string[] = []) {
  const system = req.body.system as string;
  for (const part of systemHas) expect(system).toContain(part);
  return { system, user: (req.body.messages as Array<{ content: string }>)[0].content };
}
