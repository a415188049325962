import type { AgentCallBody } from '../../core/agents/agent-body.js';
import type { AgentRequest } from './test-agent.js';

/**
 * Loopback agents with memory for multi-turn tests: each answers from the `messages` history the
 * service sends (docs/evals.md, "Agent protocol"), as a real chat agent does, and nothing else.
 * The case's name picks the agent:
 * - `memory*`: remembers every fact the user told it ("my name is Ana", "I live in Lyon") and
 *   answers "what is my name?" / "where do I live?" from them;
 * - `forgetful*`: the same, but sees only the last 3 messages (it forgets a fact after 2 turns);
 *   so does every `memory*` case when the run's agent version starts with `forgetful` (a new
 *   version of the agent that regressed);
 * - `loop*`: answers the same line whatever is asked (an agent stuck in a loop);
 * - `tools*`: calls a `lookup` tool each turn and says which turn it is on;
 * - `approve*`: asks a person's approval of its `payments` tool when told to pay, then pays.
 * `slow` in the name waits 300 ms per answer (for pause and cancel mid-conversation).
 */

const body = (req: AgentRequest) => req.body as unknown as AgentCallBody;

function recall(userTexts: string[], question: string): string {
  const facts: Record<string, string> = {};
  for (const text of userTexts) {
    const name = /my name is (\w+)/i.exec(text);
    if (name) facts.name = name[1];
    const city = /i live in (\w+)/i.exec(text);
    if (city) facts.city = city[1];
  }
  if (/what is my name/i.test(question)) return facts.name ? `Your name is ${facts.name}.` : 'I do not know your name.';
  if (/where do i live/i.test(question)) return facts.city ? `You live in ${facts.city}.` : 'I do not know where you live.';
  return 'Noted.';
}

export function conversationAgent(req: AgentRequest): Promise<{ json: unknown }> | { json: unknown } {
  const b = body(req);
  const name = b.case.name;
  const forgets = name.startsWith('forgetful') || b.agent_version.startsWith('forgetful');
  const messages = forgets ? b.messages.slice(-3) : b.messages;
  const question = b.messages.at(-1)?.content ?? '';
  const users = messages.filter((m) => m.role === 'user').map((m) => m.content);
  let answer: { output: string; tool_calls?: Array<{ name: string; input: unknown }>; usage?: unknown };
  if (name.startsWith('loop')) answer = { output: 'Could you say that again?' };
  else if (name.startsWith('approve') && /pay/i.test(question))
    answer = b.approval ? { output: b.approval.approved ? 'Paid.' : 'Not paid.' } : ({ output: 'waiting', approval: { tool: 'payments' } } as typeof answer);
  else if (name.startsWith('tools')) answer = { output: `turn ${b.turn} done`, tool_calls: [{ name: 'lookup', input: { turn: b.turn } }] };
  else answer = { output: recall(users, question), usage: { input_tokens: 10 * b.turn, output_tokens: 5 } };
  const reply = { json: answer };
  if (name.includes('slow')) return new Promise((resolve) => setTimeout(() => resolve(reply), 300));
  return reply;
}

/** Calls per turn of one case trial, as the agent received them: `{1: 1, 2: 1, ...}`. */
export function callsPerTurn(requests: AgentRequest[], runId: string, caseName: string, trial = 0): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of requests) {
    const b = body(r);
    if (b.run_id !== runId || b.case.name !== caseName || b.trial !== trial) continue;
    counts[b.turn] = (counts[b.turn] ?? 0) + 1;
  }
  return counts;
}
