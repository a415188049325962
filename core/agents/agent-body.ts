import { hexId } from '../ids/derived-ids.js';
import type { LlmMessage } from '../model/messages.js';
import { turnText } from '../conversations/view.js';

/**
 * The body of an agent call (docs/evals.md, "Agent protocol"), built here for every caller (the
 * worker's trial steps, the CLI's local runs against an endpoint) so all send one shape. The
 * conversation fields (`session_id`, `turn`, `messages`) are additive: an agent that reads only
 * `input` keeps working. `messages` uses the product's one message model (core/model/messages.ts).
 */
export interface AgentCallBody {
  input: unknown;
  case: { name: string; expected: unknown };
  /** Undefined (left out of the JSON) in an SDK run with `upload: false`. */
  run_id: string | undefined;
  agent_version: string;
  trace_id: string;
  trial: number;
  session_id: string;
  turn: number;
  messages: LlmMessage[];
  approval?: { approved: boolean; comment: string | null };
}

/** A case input as a user message's text: a string as is, anything else as its JSON text (turnText, the one such helper). */
export const inputText = turnText;

/** A stable session id (32 hex) of one case trial: the same (run, case, trial) gives the same id. */
export const caseSessionId = (runId: string, caseKey: string | number, trial: number) => hexId(`session:${runId}:${caseKey}:${trial}`, 32);

export interface AgentCallFields {
  input: unknown;
  caseName: string;
  expected: unknown;
  runId: string | undefined;
  agentVersion: string;
  traceId: string;
  trial: number;
  sessionId: string;
  approval?: { approved: boolean; comment: string | null };
}

/** A single-turn case's call: turn 1, the conversation one user message holding the input. */
export function agentCallBody(f: AgentCallFields): AgentCallBody {
  return {
    input: f.input,
    case: { name: f.caseName, expected: f.expected },
    run_id: f.runId,
    agent_version: f.agentVersion,
    trace_id: f.traceId,
    trial: f.trial,
    session_id: f.sessionId,
    turn: 1,
    messages: [{ role: 'user', content: inputText(f.input) }],
    ...(f.approval ? { approval: f.approval } : {}),
  };
}
