import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { conversationEnd } from '../../../core/conversations/stop.js';
import { texts } from '../../fixtures/corpus/texts.js';

const sim = { max_turns: 5, stop: { outputContains: ['refund issued', 'Ticket closed'] } };

describe('when a simulated conversation ends', () => {
  it('goes on while nothing says to stop', () => {
    expect(conversationEnd(sim, 0, undefined)).toBeNull();
    expect(conversationEnd(sim, 2, 'Could you give me the order number?', { message: 'Hi', stop: null })).toBeNull();
  });

  it('ends where the simulated user stops, before anything else', () => {
    expect(conversationEnd(sim, 3, 'Your refund issued today', { message: 'Thanks!', stop: 'goal_met' })).toBe('goal_met');
    expect(conversationEnd(sim, 5, 'no', { message: 'Forget it.', stop: 'gave_up' })).toBe('gave_up');
  });

  it("ends when the agent's answer contains a stop text, case-insensitively, structured answers as JSON text", () => {
    expect(conversationEnd(sim, 2, 'OK: REFUND ISSUED for 4417.')).toBe('stop_condition');
    expect(conversationEnd(sim, 2, { status: 'ticket closed', id: 7 })).toBe('stop_condition');
    expect(conversationEnd({ max_turns: 3, stop: { outputContains: ['החזר אושר'] } }, 1, `${texts.policyRefundsHebrew}\nהחזר אושר ✓`)).toBe('stop_condition');
    // A stop text matters only once the agent has answered.
    expect(conversationEnd(sim, 0, 'refund issued')).toBeNull();
  });

  it('ends at max_turns answered turns, the stop text winning when both hold', () => {
    expect(conversationEnd(sim, 5, 'Still looking.')).toBe('max_turns');
    expect(conversationEnd(sim, 5, 'Refund issued.')).toBe('stop_condition');
    expect(conversationEnd({ max_turns: 1 }, 1, undefined)).toBe('max_turns');
  });

  it('never runs past max_turns, and never ends before it without a reason', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 150 }), fc.string(), (maxTurns, done, output) => {
        const end = conversationEnd({ max_turns: maxTurns }, done, output, { message: 'x', stop: null });
        expect(end).toBe(done >= maxTurns ? 'max_turns' : null);
      }),
    );
  });
});
