import type { LlmParameters } from '../model/messages.js';
import { isRecord, jsonish, num, stringList } from './json.js';

/** Request parameter names of every convention, onto OpenAI's. */
const CANONICAL: Record<string, string> = {
  temperature: 'temperature',
  max_tokens: 'max_tokens',
  max_completion_tokens: 'max_tokens',
  max_output_tokens: 'max_tokens',
  maxTokens: 'max_tokens',
  maxOutputTokens: 'max_tokens',
  top_p: 'top_p',
  topP: 'top_p',
  top_k: 'top_k',
  topK: 'top_k',
  frequency_penalty: 'frequency_penalty',
  frequencyPenalty: 'frequency_penalty',
  presence_penalty: 'presence_penalty',
  presencePenalty: 'presence_penalty',
  seed: 'seed',
  n: 'n',
  'choice.count': 'n',
  stop: 'stop',
  stop_sequences: 'stop',
  stopSequences: 'stop',
};

/** Keys of a request body that are not parameters: the span shows them elsewhere (model, messages, tools). */
const NOT_PARAMETERS = new Set(['model', 'messages', 'tools', 'functions', 'input', 'prompt', 'system']);

/** A value as the instrumentation set it: attributes store numbers and booleans as text, structures as JSON text. */
function restored(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) return Number(value);
  return jsonish(value);
}

/**
 * Adds one parameter (the first value of a name wins). Known names are mapped and must be numbers
 * (stop: strings); any other name is kept as it came, its value restored from text.
 */
export function addParameter(out: LlmParameters, key: string, value: unknown): void {
  if (value === undefined || value === null || value === '' || key === '__proto__') return;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(out, k);
  const canonical = Object.prototype.hasOwnProperty.call(CANONICAL, key) ? CANONICAL[key] : null;
  if (canonical === null) {
    if (!has(key)) out[key] = restored(value);
    return;
  }
  if (has(canonical)) return;
  const parsed = canonical === 'stop' ? stringList(value) : num(value);
  // A known name whose value is not a number (or strings, for stop) is left out: the attributes show it as sent.
  if (parsed !== null) out[canonical] = parsed;
}

/** Parameters from a JSON object of them (OpenInference `llm.invocation_parameters`, a request body). */
export function addParameterObject(out: LlmParameters, value: unknown): void {
  const v = jsonish(value);
  if (!isRecord(v)) return;
  for (const [k, x] of Object.entries(v)) if (!NOT_PARAMETERS.has(k)) addParameter(out, k, x);
}

/** Parameters from attributes under `prefix.` (`gen_ai.request.temperature`, `ai.settings.topP`); `skip` names are not parameters. */
export function addPrefixed(out: LlmParameters, attrs: Record<string, string>, prefix: string, skip: readonly string[] = []): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (!k.startsWith(prefix)) continue;
    const name = k.slice(prefix.length);
    // Indexed keys (`x.0.y`) are lists some other convention flattened, not parameters.
    if (name === '' || skip.includes(name) || /(^|\.)\d+(\.|$)/.test(name)) continue;
    addParameter(out, name, v);
  }
}
