import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { agentCallBody, caseSessionId, inputText } from '../../../core/agents/agent-body.js';
import { LlmMessageSchema } from '../../../core/model/messages.js';

const fields = (input: unknown) => ({
  input,
  caseName: 'c',
  expected: null,
  runId: 'run-1',
  agentVersion: 'v1',
  traceId: 'a'.repeat(32),
  trial: 0,
  sessionId: caseSessionId('run-1', 0, 0),
});

describe('agentCallBody', () => {
  it('carries turn 1 and one user message whose content round-trips the input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        const body = agentCallBody(fields(input));
        expect(body.input).toBe(input);
        expect(body.turn).toBe(1);
        expect(body.messages).toHaveLength(1);
        expect(LlmMessageSchema.parse(body.messages[0])).toEqual(body.messages[0]);
        expect(body.messages[0].role).toBe('user');
        const content = body.messages[0].content;
        if (typeof input === 'string') expect(content).toBe(input);
        else expect(JSON.parse(content)).toEqual(JSON.parse(JSON.stringify(input)));
      }),
    );
  });

  it('keeps the single-turn fields and adds approval only when given', () => {
    const body = agentCallBody(fields('hi'));
    expect(body).toMatchObject({ input: 'hi', case: { name: 'c', expected: null }, run_id: 'run-1', agent_version: 'v1', trial: 0 });
    expect('approval' in body).toBe(false);
    expect(agentCallBody({ ...fields('hi'), approval: { approved: true, comment: null } }).approval).toEqual({ approved: true, comment: null });
  });

  it('derives a stable session id per (run, case, trial)', () => {
    expect(caseSessionId('r', 1, 0)).toBe(caseSessionId('r', 1, 0));
    expect(caseSessionId('r', 1, 0)).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set([caseSessionId('r', 1, 0), caseSessionId('r', 1, 1), caseSessionId('r', 2, 0), caseSessionId('s', 1, 0)]).size).toBe(4);
    expect(inputText(undefined)).toBe('null');
  });
});
