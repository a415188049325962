import { describe, expect, it } from 'vitest';
import { agentCallBody, caseSessionId } from '../../../core/agents/agent-body.js';
import { conversationReply, startConversationAgent } from '../../../examples/conversation-agent.js';

describe('examples/conversation-agent.ts', () => {
  it('answers from the history in messages', () => {
    const history = [
      { role: 'user', content: 'Hi, my name is Ada' },
      { role: 'assistant', content: 'Nice to meet you, Ada.' },
      { role: 'user', content: 'What is my name?' },
    ];
    expect(conversationReply(history)).toBe('Your name is Ada.');
    expect(conversationReply([{ role: 'user', content: 'What is my name?' }])).toBe('You have not told me your name.');
  });

  it('answers the body an eval run sends, over HTTP', async () => {
    const agent = await startConversationAgent();
    try {
      const body = agentCallBody({
        input: 'my name is Bo',
        caseName: 'c',
        expected: {},
        runId: 'r',
        agentVersion: 'v1',
        traceId: '0'.repeat(32),
        trial: 0,
        sessionId: caseSessionId('r', 0, 0),
      });
      const res = await fetch(agent.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(await res.json()).toEqual({ output: 'Nice to meet you, Bo.' });
    } finally {
      await agent.close();
    }
  });
});
