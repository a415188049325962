import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { conversationMessages, conversationViewOf, turnText } from '../../../../core/conversations/view.js';
import { inputText } from '../../../../core/agents/agent-body.js';
import type { ConversationTurnView } from '../../../../core/model/conversation.js';
import { LlmMessageSchema } from '../../../../core/model/messages.js';
import { hostileStrings, texts } from '../../../fixtures/corpus/texts.js';

const turn = (n: number, user: string, output: unknown, toolCalls: ConversationTurnView['toolCalls'] = []): ConversationTurnView => ({
  turn: n,
  user,
  assistant: turnText(output),
  output,
  toolCalls,
  latencyMs: 120 * n,
});

/** A support conversation as the corpus has it: CRLF mail text, a tool call with JSON arguments, markdown answers, Hebrew, emoji. */
const supportTurns = (): ConversationTurnView[] => [
  turn(1, texts.supportQuestion, texts.supportAnswer, [
    { name: 'lookup_order', input: { order_id: '1234', fields: ['status', 'eta'] }, output: texts.orderLookupResult },
  ]),
  turn(2, 'And the refund policy? בעברית בבקשה 🙏', texts.policyRefundsHebrew, [{ name: 'policy_search', input: 'refunds he' }]),
  turn(3, texts.multilingual, { answer: texts.travelAnswer, sources: [1, 2] }),
  turn(4, 'thanks 👩‍💻', 'You are welcome!', [{ name: 'close_ticket' }]),
];

describe('conversationViewOf', () => {
  it('lays the turns out as user then assistant messages, tool calls with JSON text arguments', () => {
    const turns = supportTurns();
    const view = conversationViewOf(turns, { sessionId: 's-1', ended: 'script_done' });
    expect(view.sessionId).toBe('s-1');
    expect(view.ended).toBe('script_done');
    expect(view.turns).toEqual(turns);
    expect(view.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    for (const m of view.messages) expect(LlmMessageSchema.parse(m)).toEqual(m);
    expect(view.messages[0].content).toBe(texts.supportQuestion);
    expect(view.messages[0].content).toContain('\r\n');
    expect(view.messages[1]).toEqual({
      role: 'assistant',
      content: texts.supportAnswer,
      tool_calls: [{ name: 'lookup_order', arguments: '{"order_id":"1234","fields":["status","eta"]}' }],
    });
    // A string input is the arguments as sent; no input, no arguments; no calls, no tool_calls.
    expect(view.messages[3].tool_calls).toEqual([{ name: 'policy_search', arguments: 'refunds he' }]);
    expect(view.messages[3].content).toBe(texts.policyRefundsHebrew);
    expect(view.messages[5]).toEqual({ role: 'assistant', content: JSON.stringify({ answer: texts.travelAnswer, sources: [1, 2] }) });
    expect('tool_calls' in view.messages[5]).toBe(false);
    expect(view.messages[7].tool_calls).toEqual([{ name: 'close_ticket', arguments: '' }]);
    expect('persona' in view || 'goal' in view || 'facts' in view).toBe(false);
  });

  it("carries a simulated user's persona, goal and facts", () => {
    const facts = ['order #1234', 'lives in Haifa'];
    const view = conversationViewOf(supportTurns(), { sessionId: 's', ended: 'goal_met', persona: 'a busy shop owner', goal: 'get a refund', facts });
    expect(view).toMatchObject({ persona: 'a busy shop owner', goal: 'get a refund', facts, ended: 'goal_met' });
    facts.push('changed later');
    expect(view.facts).toHaveLength(2);
  });

  it('keeps every hostile string byte for byte', () => {
    const strings = hostileStrings().map((s) => s.text);
    const turns = strings.map((text, i) => turn(i + 1, text, [...strings].reverse()[i], [{ name: 'echo', input: { text } }]));
    const messages = conversationMessages(turns);
    strings.forEach((text, i) => {
      expect(messages[2 * i].content).toBe(text);
      expect(messages[2 * i + 1].content).toBe([...strings].reverse()[i]);
      expect(JSON.parse(messages[2 * i + 1].tool_calls![0].arguments)).toEqual({ text });
    });
  });

  it('round-trips any turns: every text byte for byte, every tool input from its arguments', () => {
    const toolCall = fc.record({ name: fc.string({ minLength: 1 }), input: fc.option(fc.jsonValue(), { nil: undefined }) }, { requiredKeys: ['name'] });
    const turnArb = fc.record({
      user: fc.oneof(fc.string(), fc.string({ unit: 'grapheme' })),
      output: fc.jsonValue(),
      toolCalls: fc.array(toolCall, { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(turnArb, { maxLength: 12 }), (raw) => {
        const turns = raw.map((t, i) => turn(i + 1, t.user, t.output, t.toolCalls));
        const view = conversationViewOf(turns, { sessionId: 's', ended: 'max_turns' });
        expect(view.messages).toHaveLength(2 * turns.length);
        turns.forEach((t, i) => {
          const [user, assistant] = [view.messages[2 * i], view.messages[2 * i + 1]];
          expect(user).toEqual({ role: 'user', content: t.user });
          expect(assistant.role).toBe('assistant');
          expect(assistant.content).toBe(t.assistant);
          if (typeof t.output === 'string') expect(assistant.content).toBe(t.output);
          else expect(JSON.parse(assistant.content)).toEqual(JSON.parse(JSON.stringify(t.output)));
          expect((assistant.tool_calls ?? []).length).toBe(t.toolCalls.length);
          t.toolCalls.forEach((c, j) => {
            const args = assistant.tool_calls![j].arguments;
            expect(assistant.tool_calls![j].name).toBe(c.name);
            if (c.input === undefined) expect(args).toBe('');
            else if (typeof c.input === 'string') expect(args).toBe(c.input);
            else expect(JSON.parse(args)).toEqual(JSON.parse(JSON.stringify(c.input)));
          });
        });
      }),
    );
  });
});

describe('turnText', () => {
  it('is a string as is, else compact JSON, never throwing', () => {
    expect(turnText('  two\n\nparagraphs 🇮🇱 ')).toBe('  two\n\nparagraphs 🇮🇱 ');
    expect(turnText({ a: [1, 'x'], b: null })).toBe('{"a":[1,"x"],"b":null}');
    expect(turnText(null)).toBe('null');
    expect(turnText(undefined)).toBe('null');
    expect(turnText(12n)).toBe('"12"');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => turnText(cycle)).not.toThrow();
  });

  it('is the agent protocol’s one helper for a case input', () => {
    expect(inputText).toBe(turnText);
  });
});
