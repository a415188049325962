import { describe, expect, it } from 'vitest';
import { conversationEval, scriptedUser } from '../../../examples/conversation-eval.js';

describe('examples/conversation-eval.ts and examples/conversation.suite.yaml', () => {
  it('runs both conversations of the suite against the example agent, in this process', async () => {
    const result = await conversationEval({ upload: false, simulatedUser: scriptedUser, onTurn: () => undefined });
    expect(result.cases.map((c) => [c.case_name, c.status])).toEqual([
      ['remembers the name', 'passed'],
      ['greeted by name', 'passed'],
    ]);
    const [scripted, simulated] = result.outcomes.sort((a, b) => a.caseIndex - b.caseIndex);
    expect(scripted.turns!.map((t) => t.output)).toEqual(['Nice to meet you, Ana.', 'You said: I live in Lyon.', 'Your name is Ana.']);
    expect(scripted.details.knowledgeRetention.score).toBe(1);
    expect(simulated.conversation).toEqual({ ended: 'stop_condition', turns_done: 2 });
    expect(simulated.turns!.map((t) => t.user)).toEqual(['Hi there.', 'My name is Ana.']);
  });
});
