import OpenAI from 'openai';
import type { LlmSettings } from './settings.js';
import { providerError } from './errors.js';
import type { LlmProvider, StructuredRequest, StructuredResponse } from './types.js';

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/** Text parsed as JSON, or why it is not JSON. */
function parseJson(text: string | null | undefined): { value?: unknown; problem?: string } {
  if (!text) return { problem: 'the answer is empty' };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { problem: `the answer is not JSON (${(err as Error).message}): ${text.slice(0, 200)}` };
  }
}

/** A 400 saying the model does not take the temperature sent (`Unsupported value: 'temperature' does not support 0 ...`). */
function refusesTemperature(err: unknown): boolean {
  const e = err as { status?: unknown; param?: unknown; message?: unknown } | null;
  return e?.status === 400 && (e.param === 'temperature' || /\btemperature\b/i.test(String(e.message)));
}

/**
 * OpenAI Chat Completions (OPENAI_API_KEY, OPENAI_BASE_URL: any OpenAI-compatible server). The
 * answer is constrained by `response_format: {type: 'json_schema', strict: true}`, or, with
 * JUDGE_OPENAI_STRUCTURED_OUTPUT=tool (for compatible servers without JSON schemas), by one
 * function the model is forced to call (`tool_choice`). Retries are the caller's.
 */
export function openaiProvider(settings: NonNullable<LlmSettings['openai']>): LlmProvider {
  const client = new OpenAI({ apiKey: settings.apiKey, baseURL: settings.baseUrl ?? 'https://api.openai.com/v1', maxRetries: 0 });
  const viaTool = settings.structuredOutput === 'tool';
  return {
    name: 'openai',
    defaultModel: settings.model,
    async structured(req: StructuredRequest): Promise<StructuredResponse> {
      const model = req.model ?? settings.model;
      const params: ChatParams = {
        model,
        max_completion_tokens: req.maxTokens,
        ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
        ...(req.seed === undefined ? {} : { seed: req.seed }),
        messages: [{ role: 'system', content: req.system }, ...req.messages],
        ...(viaTool
          ? {
              tools: [{ type: 'function', function: { name: req.tool.name, description: req.tool.description, parameters: req.tool.schema, strict: true } }],
              tool_choice: { type: 'function', function: { name: req.tool.name } },
              parallel_tool_calls: false,
            }
          : {
              response_format: {
                type: 'json_schema',
                json_schema: { name: req.tool.name, description: req.tool.description, schema: req.tool.schema, strict: true },
              },
            }),
      };
      const create = (body: ChatParams) => client.chat.completions.create(body, { timeout: req.timeoutMs, maxRetries: 0, signal: req.signal });
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await create(params).catch((err: unknown) => {
          // Reasoning models take only their default temperature (400 naming it): asked once more without one.
          if (params.temperature === undefined || !refusesTemperature(err)) throw err;
          return create({ ...params, temperature: undefined });
        });
      } catch (err) {
        throw providerError('openai', err, req.signal);
      }
      const choice = completion.choices.at(0);
      const message = choice?.message;
      const usage = {
        input_tokens: completion.usage?.prompt_tokens ?? 0,
        output_tokens: completion.usage?.completion_tokens ?? 0,
        cached_input_tokens: completion.usage?.prompt_tokens_details?.cached_tokens ?? 0,
      };
      const base = { model: completion.model || model, usage, stopReason: choice?.finish_reason ?? null };
      if (!message) return { ...base, value: undefined, problem: 'the answer has no choices', raw: null };
      if (message.refusal) return { ...base, value: undefined, problem: `the model refused: ${message.refusal.slice(0, 300)}`, raw: message.refusal };
      if (viaTool) {
        const call = message.tool_calls?.find((c) => c.type === 'function' && c.function.name === req.tool.name);
        if (!call || call.type !== 'function')
          return { ...base, value: undefined, problem: `the model did not call ${req.tool.name}`, raw: message.content ?? null };
        const parsed = parseJson(call.function.arguments);
        return { ...base, value: parsed.value, problem: parsed.problem, raw: parsed.value ?? call.function.arguments };
      }
      const parsed = parseJson(message.content);
      return { ...base, value: parsed.value, problem: parsed.problem, raw: parsed.value ?? message.content ?? null };
    },
  };
}
