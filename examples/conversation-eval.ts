/**
 * Conversations run in this process (docs/sdk.md, "Conversations"): evaluate() calls the agent
 * function once per turn with the conversation so far (`ctx.messages`), scores each turn and the
 * whole conversation, and uploads the run with its turns. The simulated user of the suite's
 * second case is an LLM through this machine's provider configuration (ANTHROPIC_API_KEY,
 * OPENAI_API_KEY...), or with `--scripted-user` a function that plays it by rules.
 *
 *   AGENT_EVAL_URL=... AGENT_EVAL_API_KEY=... npx tsx examples/conversation-eval.ts [--scripted-user]
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { evaluate, EvaluationRunError, type EvaluateOptions, type EvaluationResult, type SimulatedUserFunction } from 'agent-eval/sdk';
import { conversationReply } from './conversation-agent.js';

export const SUITE = fileURLToPath(new URL('./conversation.suite.yaml', import.meta.url));

/** A simulated user by rules: it says its name once asked anything, and stops once greeted by it. */
export const scriptedUser: SimulatedUserFunction = ({ messages }) =>
  /nice to meet you, ana/i.test(messages.at(-1)?.content ?? '') ? { message: 'Thanks!', stop: 'goal_met' } : { message: 'My name is Ana.' };

/** The suite against the example agent, as a function of the conversation. */
export function conversationEval(options: Partial<EvaluateOptions> = {}): Promise<EvaluationResult> {
  return evaluate(SUITE, {
    agent: (_input, ctx) => conversationReply(ctx.messages),
    agentName: 'conversation-agent',
    onTurn: (t) => process.stdout.write(`${t.caseName}: turn ${t.turn}/${t.of} ${t.result.passed ? 'passed' : 'failed'}\n`),
    ...options,
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const result = await conversationEval(process.argv.includes('--scripted-user') ? { simulatedUser: scriptedUser } : {});
    for (const c of result.cases) process.stdout.write(`${c.passed ? 'PASS' : 'FAIL'} ${c.case_name} ${JSON.stringify(c.scores)}\n`);
    process.stdout.write(`${result.url ?? ''}\n`);
    process.exitCode = result.passed ? 0 : 1;
  } catch (err) {
    process.stderr.write(`${err instanceof EvaluationRunError ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
