import type { AgentCallBody } from '../../core/agents/agent-body.js';
import type { FakeAnswer, FakeRequest } from './fake-providers.js';
import type { AgentBehaviour, AgentRequest } from './test-agent.js';

/**
 * A refund conversation for simulated-user tests (issue 30): a support bot with memory over the
 * agent protocol's `messages`, and a simulated user by rules for a fake provider's `setDefault`
 * (deterministic whatever order its calls come in). The memory agents picked by case name are
 * test/helpers/conversation-agents.ts.
 */

/** The conversation an agent call carries (the current user message last). */
export const messagesOf = (req: AgentRequest) => (req.body as unknown as AgentCallBody).messages;

/** The refund the bot issues, and the question it asks until it can. */
export const REFUND_ISSUED = 'Refund issued for order 4417.';
export const ASK_ORDER = 'Sorry to hear that. What is your order number?';

/** The fact a simulated user needs to give for the bot to refund. */
export const ORDER_FACT = 'The order number is 4417.';

/**
 * A support bot that remembers the conversation: it asks for the order number until a user
 * message held it, then issues the refund. With `window`, it sees only the last `window` user
 * messages (it forgets the number after that many turns).
 */
export function refundBot(window = Infinity): AgentBehaviour {
  return (req) => {
    const said = messagesOf(req)
      .filter((m) => m.role === 'user')
      .slice(-window);
    return { json: { output: said.some((m) => m.content.includes('4417')) ? REFUND_ISSUED : ASK_ORDER, usage: { input_tokens: 20, output_tokens: 8 } } };
  };
}

/** A new version that loops: the same question whatever the user says. */
export const loopingRefundBot: AgentBehaviour = () => ({ json: { output: 'Could you describe the problem again?' } });

/**
 * The simulated user by rules: it gives the order number when its facts hold ORDER_FACT, says
 * thanks (goal met) once the refund is issued, and gives up once it was asked twice without it.
 */
export function ruleBasedUser(req: FakeRequest): FakeAnswer {
  const text = JSON.stringify(req.body);
  const usage = { input: 250, output: 15 };
  if (text.includes('Refund issued')) return { verdict: { message: 'Great, thank you!', status: 'goal_met' }, usage };
  const asked = text.split('What is your order number?').length - 1 + text.split('describe the problem again').length - 1;
  if (asked >= 2) return { verdict: { message: 'This is going nowhere, forget it.', status: 'gave_up' }, usage };
  if (text.includes(ORDER_FACT)) return { verdict: { message: 'It is order 4417.', status: 'continue' }, usage };
  return { verdict: { message: 'I do not have the order number at hand, sorry.', status: 'continue' }, usage };
}
