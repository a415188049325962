import { GoogleGenAI, Type, type GenerateContentResponse, type Schema } from '@google/genai';
import type { LlmSettings } from './settings.js';
import { providerError } from './errors.js';
import { fixedTokenAuthClient } from './vertex-auth.js';
import type { JsonSchema, LlmProvider, StructuredRequest, StructuredResponse } from './types.js';

const TYPES: Record<string, Type> = {
  object: Type.OBJECT,
  string: Type.STRING,
  number: Type.NUMBER,
  integer: Type.INTEGER,
  boolean: Type.BOOLEAN,
  array: Type.ARRAY,
};

/** A JSON Schema (object, string (an enum too), number, array) as Gemini's OpenAPI-style `responseSchema`. */
export function toGeminiSchema(schema: JsonSchema): Schema {
  const out: Schema = { type: TYPES[String(schema.type)] ?? Type.TYPE_UNSPECIFIED };
  if (typeof schema.description === 'string') out.description = schema.description;
  if (Array.isArray(schema.enum)) {
    out.enum = schema.enum.map(String);
    out.format = 'enum';
  }
  if (schema.properties && typeof schema.properties === 'object') {
    const properties = schema.properties as Record<string, JsonSchema>;
    out.properties = Object.fromEntries(Object.entries(properties).map(([key, sub]) => [key, toGeminiSchema(sub)]));
    out.propertyOrdering = Object.keys(properties);
  }
  if (Array.isArray(schema.required)) out.required = schema.required.map(String);
  if (schema.items && typeof schema.items === 'object') out.items = toGeminiSchema(schema.items as JsonSchema);
  if (typeof schema.minimum === 'number') out.minimum = schema.minimum;
  if (typeof schema.maximum === 'number') out.maximum = schema.maximum;
  return out;
}

/**
 * Gemini on Vertex AI through @google/genai (`vertexai: true`, GOOGLE_CLOUD_PROJECT,
 * GOOGLE_CLOUD_LOCATION; GOOGLE_VERTEX_BASE_URL points it elsewhere). The answer is constrained
 * by `responseMimeType: application/json` and a `responseSchema`. The SDK retries nothing unless
 * asked to; the caller retries.
 */
export function vertexGeminiProvider(settings: NonNullable<LlmSettings['vertex-gemini']>): LlmProvider {
  const ai = new GoogleGenAI({
    vertexai: true,
    project: settings.project,
    location: settings.location,
    apiVersion: 'v1',
    ...(settings.baseUrl ? { httpOptions: { baseUrl: settings.baseUrl } } : {}),
    ...(settings.accessToken ? { googleAuthOptions: { authClient: fixedTokenAuthClient(settings.accessToken, settings.project) } } : {}),
  });
  return {
    name: 'vertex-gemini',
    defaultModel: settings.model,
    async structured(req: StructuredRequest): Promise<StructuredResponse> {
      const model = req.model ?? settings.model;
      let response: GenerateContentResponse;
      try {
        response = await ai.models.generateContent({
          model,
          contents: req.messages.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
          config: {
            systemInstruction: req.system,
            responseMimeType: 'application/json',
            responseSchema: toGeminiSchema(req.tool.schema),
            maxOutputTokens: req.maxTokens,
            ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
            ...(req.seed === undefined ? {} : { seed: req.seed }),
            abortSignal: req.signal,
            httpOptions: { timeout: req.timeoutMs },
          },
        });
      } catch (err) {
        throw providerError('vertex-gemini', err, req.signal);
      }
      const meta = response.usageMetadata;
      const usage = {
        input_tokens: meta?.promptTokenCount ?? 0,
        // Thinking tokens are billed as output.
        output_tokens: (meta?.candidatesTokenCount ?? 0) + (meta?.thoughtsTokenCount ?? 0),
        cached_input_tokens: meta?.cachedContentTokenCount ?? 0,
      };
      const candidate = response.candidates?.at(0);
      const text =
        candidate?.content?.parts
          ?.filter((p) => typeof p.text === 'string' && !p.thought)
          .map((p) => p.text)
          .join('') ?? '';
      const base = { model: response.modelVersion || model, usage, stopReason: candidate?.finishReason ?? null };
      if (!candidate)
        return {
          ...base,
          value: undefined,
          problem: `no candidate${response.promptFeedback?.blockReason ? ` (blocked: ${response.promptFeedback.blockReason})` : ''}`,
          raw: null,
        };
      if (!text) return { ...base, value: undefined, problem: `the answer is empty (finish reason ${candidate.finishReason ?? 'none'})`, raw: null };
      try {
        const value = JSON.parse(text) as unknown;
        return { ...base, value, raw: value };
      } catch (err) {
        return { ...base, value: undefined, problem: `the answer is not JSON (${(err as Error).message}): ${text.slice(0, 200)}`, raw: text };
      }
    },
  };
}
