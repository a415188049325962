import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_USER_MESSAGE_CHARS, parseUserTurn, parseUserTurnText, userTurnStatus } from '../../../core/conversations/simulator-answer.js';
import { hostileStrings, longAnswer, texts } from '../../fixtures/corpus/texts.js';

describe('the simulated user answer', () => {
  it('reads {message, status} as the next user turn', () => {
    expect(parseUserTurn({ message: 'My order 4417 has not arrived.', status: 'continue' })).toEqual({
      turn: { message: 'My order 4417 has not arrived.', stop: null },
    });
    expect(parseUserTurn({ message: 'Thanks, that is all.', status: 'goal_met' })).toEqual({ turn: { message: 'Thanks, that is all.', stop: 'goal_met' } });
    expect(parseUserTurn({ message: '', status: 'gave_up' })).toEqual({ turn: { message: '', stop: 'gave_up' } });
  });

  it('takes the status in any case, spacing and common synonym', () => {
    for (const [raw, status] of [
      ['GOAL_MET', 'goal_met'],
      ['Goal met', 'goal_met'],
      ['goal-met', 'goal_met'],
      [' done ', 'goal_met'],
      ['completed', 'goal_met'],
      ['Gave Up', 'gave_up'],
      ['give up', 'gave_up'],
      ['abandoned', 'gave_up'],
      ['in progress', 'continue'],
      ['CONTINUE', 'continue'],
    ] as const) {
      expect(userTurnStatus(raw), raw).toBe(status);
    }
    expect(userTurnStatus('maybe')).toBeUndefined();
    expect(userTurnStatus('__proto__')).toBeUndefined();
  });

  it('names what is wrong with a malformed answer', () => {
    expect(parseUserTurn({ message: 'hi', status: 'perhaps' })).toEqual({ problem: 'status must be continue, goal_met or gave_up (got "perhaps")' });
    expect(parseUserTurn({ message: 'hi' })).toMatchObject({ problem: expect.stringMatching(/^status /) as unknown });
    expect(parseUserTurn({ message: 42, status: 'continue' })).toMatchObject({ problem: expect.stringMatching(/^message /) as unknown });
    expect(parseUserTurn(null)).toMatchObject({ problem: expect.stringMatching(/^the answer /) as unknown });
    expect(parseUserTurn([1, 2])).toMatchObject({ problem: expect.any(String) as unknown });
    expect(parseUserTurn({ message: '   ', status: 'continue' })).toEqual({ problem: 'message must not be empty when status is continue' });
  });

  it('takes a marker that ends the message over a status of continue, and cuts it from the message', () => {
    expect(parseUserTurn({ message: 'Perfect, thank you! [GOAL_MET]', status: 'continue' })).toEqual({
      turn: { message: 'Perfect, thank you!', stop: 'goal_met' },
    });
    expect(parseUserTurn({ message: 'Forget it. [[gave up]]', status: 'continue' })).toEqual({ turn: { message: 'Forget it.', stop: 'gave_up' } });
    expect(parseUserTurn({ message: 'Great <goal_met/>', status: 'continue' })).toEqual({ turn: { message: 'Great', stop: 'goal_met' } });
    expect(parseUserTurn({ message: 'This is useless. GAVE_UP', status: 'continue' })).toEqual({ turn: { message: 'This is useless.', stop: 'gave_up' } });
    // An explicit stop status is kept; the marker is still cut.
    expect(parseUserTurn({ message: 'Bye [GAVE_UP]', status: 'goal_met' })).toEqual({ turn: { message: 'Bye', stop: 'goal_met' } });
    // Prose is not a marker: "goal met" in lower case, a marker inside the text.
    expect(parseUserTurn({ message: 'Is my goal met', status: 'continue' })).toEqual({ turn: { message: 'Is my goal met', stop: null } });
    expect(parseUserTurn({ message: 'What does [GOAL_MET] mean here?', status: 'continue' })).toEqual({
      turn: { message: 'What does [GOAL_MET] mean here?', stop: null },
    });
  });

  it('reads the answer from free text: JSON in a code fence or not, or text ending with a marker', () => {
    expect(parseUserTurnText('Sure.\n```json\n{"message": "Where is my parcel?", "status": "continue"}\n```')).toEqual({
      turn: { message: 'Where is my parcel?', stop: null },
    });
    expect(parseUserTurnText('{"message":"ok bye","status":"gave_up"}')).toEqual({ turn: { message: 'ok bye', stop: 'gave_up' } });
    expect(parseUserTurnText('Thanks, the refund is confirmed. [GOAL_MET]')).toEqual({
      turn: { message: 'Thanks, the refund is confirmed.', stop: 'goal_met' },
    });
    expect(parseUserTurn('Great, done. [GOAL_MET]')).toEqual({ turn: { message: 'Great, done.', stop: 'goal_met' } });
    expect(parseUserTurnText('I cannot role-play as a user.')).toMatchObject({ problem: expect.stringContaining('free text') as unknown });
    expect(parseUserTurnText('{"message": broken')).toMatchObject({ problem: expect.stringContaining('free text') as unknown });
  });

  it('keeps corpus texts byte for byte: CRLF, Hebrew (RTL), several scripts, emoji', () => {
    for (const text of [texts.supportQuestion, texts.policyRefundsHebrew, texts.multilingual, 'Merci 🙏🏽 — שלום 👋 مرحبا']) {
      expect(parseUserTurn({ message: text, status: 'continue' })).toEqual({ turn: { message: text, stop: null } });
    }
  });

  it('makes hostile strings storable (no lone surrogate, no NUL) and keeps the rest', () => {
    for (const h of hostileStrings()) {
      if (h.text.trim() === '') continue;
      const parsed = parseUserTurn({ message: h.text, status: 'continue' });
      expect('turn' in parsed, h.name).toBe(true);
      if (!('turn' in parsed)) continue;
      expect(parsed.turn.message.isWellFormed(), h.name).toBe(true);
      expect(parsed.turn.message.includes('\0'), h.name).toBe(false);
      if (h.wellFormed && !h.text.includes('\0')) expect(parsed.turn.message, h.name).toBe(h.text);
    }
  });

  it('refuses a message over the limit and takes one at it', () => {
    const huge = longAnswer();
    expect(huge.length).toBeGreaterThan(MAX_USER_MESSAGE_CHARS);
    expect(parseUserTurn({ message: huge, status: 'continue' })).toEqual({
      problem: `message must be at most ${MAX_USER_MESSAGE_CHARS} characters (got ${huge.length})`,
    });
    const atLimit = huge.slice(0, MAX_USER_MESSAGE_CHARS);
    expect(parseUserTurn({ message: atLimit, status: 'continue' })).toMatchObject({ turn: { stop: null } });
  });

  it('never throws, whatever the answer', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const parsed = parseUserTurn(value);
        expect('turn' in parsed || 'problem' in parsed).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.constantFrom('continue', 'goal_met', 'gave_up'), (message, status) => {
        const parsed = parseUserTurn({ message, status });
        if (status !== 'continue') expect(parsed).toMatchObject({ turn: { stop: status } });
        else if (message.trim() === '') expect(parsed).toEqual({ problem: 'message must not be empty when status is continue' });
        else expect(parsed).toEqual({ turn: { message: message.toWellFormed().replaceAll('\0', ''), stop: null } });
      }),
    );
  });
});
