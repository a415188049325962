import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { isRecord } from '../messages/json.js';
import { MAX_REPORTED_ISSUES } from './pg-json.js';
import {
  LabelName,
  MAX_RENDERED_CHARS,
  MAX_VARIABLE_CHARS,
  MAX_VARIABLES,
  PromptVersionNumber,
  type ChatMessage,
  type PromptType,
  type RenderedPrompt,
} from './prompt.js';

/**
 * Rendering a prompt version (POST /api/prompts/{id}/render, docs/prompts.md): the request's
 * variables, the `{{name}}` syntax, and the one-pass substitution with its size bound.
 */

/**
 * Variables of a render: an object of names to strings, numbers or booleans (numbers and
 * booleans as their text). Read from the object's own entries into a Map, so any name (even
 * `__proto__`) is just a name.
 */
const VariablesSchema = z.unknown().transform((raw, ctx): Map<string, string> => {
  const vars = new Map<string, string>();
  if (raw === undefined || raw === null) return vars;
  if (!isRecord(raw)) {
    ctx.addIssue({ code: 'custom', message: 'must be an object of variable names to values' });
    return vars;
  }
  const entries = Object.entries(raw);
  if (entries.length > MAX_VARIABLES) {
    ctx.addIssue({ code: 'custom', message: `at most ${MAX_VARIABLES} variables` });
    return vars;
  }
  let problems = 0;
  for (const [name, value] of entries) {
    let text: string | undefined;
    if (typeof value === 'string') text = value;
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') text = String(value);
    let message: string | undefined;
    if (text === undefined) message = 'must be a string, a finite number or a boolean';
    else if (text.length > MAX_VARIABLE_CHARS) message = `must be at most ${MAX_VARIABLE_CHARS} characters`;
    if (message === undefined) vars.set(name, text!);
    else if (++problems <= MAX_REPORTED_ISSUES) ctx.addIssue({ code: 'custom', path: [name], message });
  }
  return vars;
});

/** POST /api/prompts/{id}/render. */
export const RenderRequestSchema = z
  .strictObject({
    variables: VariablesSchema.optional().transform((vars) => vars ?? new Map<string, string>()),
    version: PromptVersionNumber.optional(),
    label: LabelName.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.version !== undefined && body.label !== undefined)
      ctx.addIssue({ code: 'custom', path: ['label'], message: 'give either version or label, not both' });
  });

/**
 * `{{name}}` with optional whitespace inside the braces. A name is an identifier of at most 128
 * characters; anything else between braces is text. `\s` and `\w` do not overlap, so matching
 * stays linear however hostile the template.
 */
const VARIABLE = /\{\{\s*([A-Za-z_]\w{0,127})\s*\}\}/g;

/** The variables a template names, each once, in order of first use. */
export function templateVariables(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(VARIABLE), (m) => m[1]))];
}

/** The variables a prompt version names, across its template or all its messages. */
export function promptVariables(p: { template: string | null; messages: ChatMessage[] | null }): string[] {
  const texts = p.template !== null ? [p.template] : (p.messages ?? []).map((m) => m.content);
  return [...new Set(texts.flatMap(templateVariables))];
}

export class RenderTooLargeError extends ValidationError {
  constructor(limit: number) {
    super([{ field: 'variables', message: `the rendered prompt would exceed ${limit} characters` }]);
  }
}

/**
 * Substitutes `{{name}}` in the template or in every message's content, in one pass: a value
 * that itself holds `{{x}}` is not expanded again. A name without a value stays exactly as
 * written (`{{ name }}`) and is reported in `missing`. Throws {@link RenderTooLargeError} once
 * the output would pass `maxChars`, before building it.
 */
export function renderPrompt(
  prompt: { type: PromptType; template: string | null; messages: ChatMessage[] | null },
  variables: ReadonlyMap<string, string>,
  maxChars = MAX_RENDERED_CHARS,
): RenderedPrompt {
  const used = new Set<string>();
  const missingNames = new Set<string>();
  let size = 0;
  const render = (text: string): string => {
    size += text.length;
    if (size > maxChars) throw new RenderTooLargeError(maxChars);
    return text.replace(VARIABLE, (whole: string, name: string) => {
      const value = variables.get(name);
      if (value === undefined) {
        missingNames.add(name);
        return whole;
      }
      used.add(name);
      size += value.length - whole.length;
      if (size > maxChars) throw new RenderTooLargeError(maxChars);
      return value;
    });
  };
  const text = prompt.type === 'text' ? render(prompt.template ?? '') : null;
  const messages = prompt.type === 'chat' ? (prompt.messages ?? []).map((m) => ({ role: m.role, content: render(m.content) })) : null;
  const unused = [...variables.keys()].filter((name) => !used.has(name));
  return { type: prompt.type, text, messages, used: [...used], missing: [...missingNames], unused };
}
