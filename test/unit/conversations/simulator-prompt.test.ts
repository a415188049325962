import { describe, expect, it } from 'vitest';
import {
  MAX_MESSAGE_CHARS,
  MAX_TRANSCRIPT_CHARS,
  simulatorPrompt,
  simulatorSystemPrompt,
  USER_TURN_SCHEMA,
  USER_TURN_TOOL_NAME,
} from '../../../core/conversations/simulator-prompt.js';
import { SimulationSchema } from '../../../core/model/conversation.js';
import type { LlmMessage } from '../../../core/model/messages.js';
import { longAnswer, texts } from '../../fixtures/corpus/texts.js';

const simulation = SimulationSchema.parse({
  persona: 'Dana, a busy customer who writes short messages.',
  goal: 'Get a refund for order 4417, which arrived broken.',
  facts: ['The order number is 4417.', 'The parcel arrived on Monday with a cracked screen.'],
  max_turns: 8,
});

describe('the simulated user prompt', () => {
  it('sets persona, goal and facts, says to reveal facts only when relevant, and how to answer', () => {
    const system = simulatorSystemPrompt(simulation);
    expect(system).toContain('Dana, a busy customer who writes short messages.');
    expect(system).toContain('Get a refund for order 4417, which arrived broken.');
    expect(system).toContain('- The order number is 4417.\n- The parcel arrived on Monday with a cracked screen.');
    expect(system).toMatch(/only when it becomes relevant/);
    expect(system).toContain(`calling ${USER_TURN_TOOL_NAME}`);
    expect(system).toMatch(/goal_met/);
    expect(system).toMatch(/gave_up/);
    expect(simulatorSystemPrompt({ ...simulation, facts: [] })).toMatch(/You know no particular facts/);
  });

  it('asks for the first message when the conversation is empty', () => {
    expect(simulatorPrompt([], 1)).toBe('The conversation has not started. Write your first message to the assistant (turn 1).');
  });

  it('shows the conversation as the user saw it: user and assistant text, in tags, byte for byte', () => {
    const messages: LlmMessage[] = [
      { role: 'system', content: texts.supportSystemPrompt },
      { role: 'user', content: texts.supportQuestion },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'lookup_order', arguments: '{"id":4417}' }] },
      { role: 'tool', content: texts.orderLookupResult, tool_call_id: 'c1' },
      { role: 'assistant', content: texts.policyRefundsHebrew },
    ];
    const prompt = simulatorPrompt(messages, 2);
    expect(prompt).toBe(
      `<conversation>\n<user>\n${texts.supportQuestion}\n</user>\n<assistant>\n${texts.policyRefundsHebrew}\n</assistant>\n</conversation>\n\n` +
        'Write your next message to the assistant (turn 2), or end the conversation with goal_met or gave_up.',
    );
    expect(prompt).not.toContain(texts.orderLookupResult);
  });

  it('cuts a huge message and keeps the latest messages when the transcript is too long', () => {
    const huge = longAnswer();
    const one = simulatorPrompt(
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: huge },
      ],
      2,
    );
    expect(one).toContain(huge.slice(0, MAX_MESSAGE_CHARS));
    expect(one).toContain(`[… ${huge.length - MAX_MESSAGE_CHARS} more characters not shown]`);
    const many: LlmMessage[] = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `${i}: ${huge.slice(0, 15_000)}` }));
    const prompt = simulatorPrompt(many, 21);
    expect(prompt.length).toBeLessThan(MAX_TRANSCRIPT_CHARS + 1000);
    expect(prompt).toMatch(/^<conversation>\n\[\d+ earlier messages not shown\]\n<(user|assistant)>\n\d+: /);
    expect(prompt).toContain('39: ');
  });

  it('never splits an emoji when it cuts', () => {
    const emoji = '🙂'.repeat(MAX_MESSAGE_CHARS);
    const prompt = simulatorPrompt([{ role: 'user', content: emoji }], 2);
    expect(prompt.isWellFormed()).toBe(true);
  });

  it('asks for an answer every provider takes: both fields required, a status enum, no extra keys', () => {
    expect(USER_TURN_SCHEMA).toMatchObject({ required: ['message', 'status'], additionalProperties: false });
    expect((USER_TURN_SCHEMA.properties as Record<string, { enum?: string[] }>).status.enum).toEqual(['continue', 'goal_met', 'gave_up']);
  });
});
