import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { LlmMessage } from 'agent-eval/sdk';

/**
 * An HTTP agent that answers from the conversation (docs/evals.md, "Agent protocol"): it reads
 * `messages`, the history the eval run sends with every call, instead of `input`, so the same
 * agent works for today's one-turn cases and for multi-turn conversations. It remembers a name
 * told in any earlier turn. Run it with `npx tsx examples/conversation-agent.ts [port]` and
 * register its URL with `POST /api/agents`.
 */

/** The part of the call body this agent reads. */
interface CallBody {
  session_id?: string;
  turn?: number;
  messages?: LlmMessage[];
  input?: unknown;
}

/** The answer to the last user message, using everything the user said before it. */
export function conversationReply(messages: readonly LlmMessage[]): string {
  const said = messages.filter((m) => m.role === 'user').map((m) => m.content);
  const last = said.at(-1) ?? '';
  const name = said
    .map((text) => /my name is (\w+)/i.exec(text)?.[1])
    .filter((n): n is string => n !== undefined)
    .at(-1);
  if (/what is my name/i.test(last)) return name ? `Your name is ${name}.` : 'You have not told me your name.';
  if (/my name is/i.test(last)) return `Nice to meet you, ${name}.`;
  return `You said: ${last}`;
}

/** Serves the agent on `port` (0: any free port); resolves to its URL and a close function. */
export async function startConversationAgent(port = 0): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      let body: CallBody;
      try {
        body = JSON.parse(raw) as CallBody;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not JSON' }));
        return;
      }
      // An older caller without `messages`: the input is the one user turn.
      const messages = body.messages ?? [{ role: 'user', content: typeof body.input === 'string' ? body.input : JSON.stringify(body.input) }];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ output: conversationReply(messages) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${bound}/`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url } = await startConversationAgent(Number(process.argv[2] ?? 8787));
  process.stdout.write(`conversation agent listening on ${url}\n`);
}
