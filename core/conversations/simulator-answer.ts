import { z } from 'zod';
import type { SimulatedUserTurn } from '../model/conversation.js';
import type { UserTurnStatus } from './simulator-prompt.js';

/**
 * The simulated user's answer read into a turn (docs/evals.md, "Simulated users"). The answer is
 * asked for as `{message, status}` through structured output; models still vary, so this reads
 * the variants seen in practice and names the problem otherwise (the simulator then asks again):
 * - `status` in any case or spacing, and its common synonyms (`done`, `give up`, `in_progress`...);
 * - a marker ending the message (`[GOAL_MET]`, `<gave_up/>`, a bare `GOAL_MET`) when the status
 *   says `continue`: the marker wins and is cut from the message;
 * - free text holding the JSON answer (in a code fence or not), when the provider gave no
 *   structured value (a model that wrote text instead of calling the tool).
 * Pure, browser-safe.
 */

/** The longest user message taken (the SimulationSchema's longest text). */
export const MAX_USER_MESSAGE_CHARS = 65_536;

const STATUS_ALIASES: Record<string, UserTurnStatus> = {
  continue: 'continue',
  continuing: 'continue',
  ongoing: 'continue',
  in_progress: 'continue',
  none: 'continue',
  goal_met: 'goal_met',
  goal_achieved: 'goal_met',
  goal_reached: 'goal_met',
  met: 'goal_met',
  done: 'goal_met',
  complete: 'goal_met',
  completed: 'goal_met',
  success: 'goal_met',
  gave_up: 'gave_up',
  give_up: 'gave_up',
  giving_up: 'gave_up',
  given_up: 'gave_up',
  abandon: 'gave_up',
  abandoned: 'gave_up',
  failed: 'gave_up',
  quit: 'gave_up',
};

/** A status as written, normalized (`Goal Met`, `goal-met`, `GOAL_MET` -> `goal_met`), or undefined when unknown. */
export function userTurnStatus(raw: string): UserTurnStatus | undefined {
  const key = raw
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return Object.hasOwn(STATUS_ALIASES, key) ? STATUS_ALIASES[key] : undefined;
}

/** A marker ending a message: bracketed in any case (`[GOAL_MET]`, `[[gave up]]`, `<goal_met/>`), or bare in capitals (`GAVE_UP`). */
const TRAILING_MARKER = /(?:[[<]{1,2}\s*(goal[_ ]met|gave[_ ]up)\s*\/?[\]>]{1,2}|\b(GOAL_MET|GAVE_UP))[\s.!]*$/i;

function trailingMarker(message: string): { status: UserTurnStatus; rest: string } | undefined {
  const m = TRAILING_MARKER.exec(message);
  if (!m) return undefined;
  const bare = m[2];
  // A bare marker counts only in capitals: "I'm done, goal met" is prose.
  if (bare !== undefined && bare !== bare.toUpperCase()) return undefined;
  const status = userTurnStatus(m[1] ?? bare);
  return status && { status, rest: message.slice(0, m.index).trimEnd() };
}

const AnswerSchema = z.object({
  message: z.string().default(''),
  status: z.string(),
});

/** Text every store can hold: lone surrogates as U+FFFD, no NUL. */
const storable = (text: string) => text.toWellFormed().replaceAll('\0', '');

/** A structured answer as the simulated user's turn, or why it is not one. */
export function parseUserTurn(value: unknown): { turn: SimulatedUserTurn } | { problem: string } {
  if (typeof value === 'string') return parseUserTurnText(value);
  const parsed = AnswerSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { problem: `${issue.path.length ? issue.path.join('.') : 'the answer'} ${issue.message}` };
  }
  let status = userTurnStatus(parsed.data.status);
  if (!status) return { problem: `status must be continue, goal_met or gave_up (got ${JSON.stringify(parsed.data.status.slice(0, 60))})` };
  let message = parsed.data.message;
  const marker = trailingMarker(message);
  if (marker) {
    message = marker.rest;
    if (status === 'continue') status = marker.status;
  }
  if (status === 'continue' && message.trim() === '') return { problem: 'message must not be empty when status is continue' };
  if (message.length > MAX_USER_MESSAGE_CHARS) return { problem: `message must be at most ${MAX_USER_MESSAGE_CHARS} characters (got ${message.length})` };
  return { turn: { message: storable(message), stop: status === 'continue' ? null : status } };
}

/** The first JSON object in `text`, from a code fence or the first `{` to its matching `}`; undefined when there is none. */
function jsonObjectIn(text: string): unknown {
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text)?.[1];
  for (const candidate of [fenced, text]) {
    if (candidate === undefined) continue;
    const start = candidate.indexOf('{');
    const end = candidate.lastIndexOf('}');
    if (start < 0 || end <= start) continue;
    try {
      return JSON.parse(candidate.slice(start, end + 1)) as unknown;
    } catch {
      // Not JSON: the next candidate, or no object at all.
    }
  }
  return undefined;
}

/**
 * Free text from a model that did not answer through the tool: the JSON answer inside it, else
 * the text as the message when it ends with a marker (`… [GOAL_MET]`); plain text without a
 * marker is not taken (it may be a refusal or a comment about the task, not the user's words).
 */
export function parseUserTurnText(text: string): { turn: SimulatedUserTurn } | { problem: string } {
  const json = jsonObjectIn(text);
  if (json !== undefined && typeof json === 'object' && json !== null && 'status' in json) return parseUserTurn(json);
  const marker = trailingMarker(text.trim());
  if (marker) return parseUserTurn({ message: marker.rest, status: marker.status });
  return { problem: `the answer is free text, not a call of the tool with message and status: ${JSON.stringify(text.slice(0, 200))}` };
}
