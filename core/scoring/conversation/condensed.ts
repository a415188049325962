import type { ConversationTurnView, ConversationView } from '../../model/conversation.js';
import { turnText } from '../../conversations/view.js';
import { promptText } from '../../judges/prompt.js';
import { cut } from '../rules/support.js';
import { callText, plural } from '../trajectory/support.js';
import { END_WORDS } from './support.js';

/**
 * A conversation as a judge reads it (docs/scorers.md "Conversation scorers"), the way
 * condensed-trajectory.ts shows a trace: a header (how many turns, how it ended), then each turn
 * as `[turn n]` with the user's message, the agent's answer and its tool calls. Texts keep their
 * lines, each indented, so nothing inside a message can pass for a turn marker. Each text is cut
 * to its own cap, the whole to `maxChars`: when the turns do not fit, the first and the last turns
 * are kept, alternately, as many as fit, and the gap says which turns it leaves out.
 */

/** Most tool calls shown per turn. */
const MAX_CALLS = 10;
/** Characters of a tool call's result. */
const RESULT_CHARS = 200;
/** The longest gap note. */
const GAP_CHARS = 80;

/** Characters of one message: a sixth of the budget (so at least three turns fit), between 200 and 4,000. */
export const textChars = (maxChars: number) => Math.max(200, Math.min(4_000, Math.floor(maxChars / 6)));

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const indented = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => `    ${line}`)
    .join('\n');

/** One turn: its marker, the user's message, the agent's answer, its tool calls. */
export function turnBlock(turn: ConversationTurnView, chars: number): string {
  const lines = [`[turn ${turn.turn}]`, '  user:', indented(promptText(turn.user, chars))];
  const calls = turn.toolCalls.slice(0, MAX_CALLS).map((c) => {
    const args = c.input === undefined ? '' : turnText(c.input);
    const result = c.output === undefined ? '' : ` -> ${cut(oneLine(turnText(c.output)), RESULT_CHARS)}`;
    return `    ${oneLine(callText(c.name, args))}${result}`;
  });
  if (calls.length) {
    const more = turn.toolCalls.length > MAX_CALLS ? `\n    … and ${turn.toolCalls.length - MAX_CALLS} more` : '';
    lines.push(`  agent called ${plural(turn.toolCalls.length, 'tool')}:`, calls.join('\n') + more);
  }
  lines.push('  agent:', indented(promptText(turn.assistant, chars)));
  return lines.join('\n');
}

function header(view: ConversationView): string {
  return `${plural(view.turns.length, 'turn')}; the conversation ended because ${END_WORDS[view.ended] ?? view.ended} (${view.ended}).`;
}

/** `[… turns 4-17 not shown (14 turns) …]`. */
function gapText(from: number, to: number): string {
  return from === to ? `[… turn ${from} not shown …]` : `[… turns ${from}-${to} not shown (${to - from + 1} turns) …]`;
}

/** The conversation as turns, at most `maxChars` characters (the header and one gap note may pass a tiny budget). */
export function condenseConversation(view: ConversationView, maxChars: number): string {
  const chars = textChars(maxChars);
  const blocks = view.turns.map((t) => turnBlock(t, chars));
  const head = header(view);
  const total = blocks.reduce((sum, b) => sum + b.length + 1, head.length);
  if (total <= maxChars) return [head, ...blocks].join('\n');

  const keep = new Uint8Array(blocks.length);
  let left = maxChars - head.length - (GAP_CHARS + 1);
  // The first turns (what the user came for) and the last (where it ended), alternately.
  let lo = 0;
  let hi = blocks.length - 1;
  for (let fromStart = true; lo <= hi; fromStart = !fromStart) {
    const i = fromStart ? lo++ : hi--;
    if (blocks[i].length + 1 > left) break;
    keep[i] = 1;
    left -= blocks[i].length + 1;
  }
  const out = [head];
  let gapFrom = -1;
  blocks.forEach((block, i) => {
    if (!keep[i]) {
      if (gapFrom < 0) gapFrom = i;
      return;
    }
    if (gapFrom >= 0) out.push(gapText(view.turns[gapFrom].turn, view.turns[i - 1].turn));
    gapFrom = -1;
    out.push(block);
  });
  if (gapFrom >= 0) out.push(gapText(view.turns[gapFrom].turn, view.turns[blocks.length - 1].turn));
  return out.join('\n');
}
