import { z } from 'zod';

/**
 * The conversation of a model call, one shape for every instrumentation convention
 * (docs/api.md "The llm field", docs/conventions.md "Messages, tool calls and parameters").
 * OpenAI-chat-like, as Langfuse and Phoenix show a generation: the prompt's messages, the
 * response's messages, the tools the model was offered, its parameters and why it stopped.
 * Built when the API answers (core/messages), from the stored span; browser-safe (no Node imports).
 */

/** The roles every convention's roles map to (`developer` -> system, `model` / `ai` -> assistant, `human` -> user, `function` -> tool). */
export const MESSAGE_ROLES = ['system', 'user', 'assistant', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** A tool (function) call the model asked for. */
export const LlmToolCallSchema = z.object({
  /** The call's id, which the tool message answering it repeats in `tool_call_id`. */
  id: z.string().optional(),
  name: z.string(),
  /** The arguments as JSON text, as sent ('' when none were sent); structured arguments are serialized compactly. */
  arguments: z.string(),
});
export type LlmToolCall = z.infer<typeof LlmToolCallSchema>;

/**
 * A piece of a message's content, listed (in order, text included) only when the message has
 * pieces that are not text: images, audio, files, reasoning. `text` for text and reasoning,
 * `data` the part as the instrumentation sent it otherwise.
 */
export const LlmContentPartSchema = z.object({
  type: z.string(),
  text: z.string().optional(),
  data: z.unknown().optional(),
});
export type LlmContentPart = z.infer<typeof LlmContentPartSchema>;

export const LlmMessageSchema = z.object({
  /** One of MESSAGE_ROLES after mapping; a role no convention names is kept as sent. */
  role: z.string(),
  /** The text parts, byte for byte, joined by a newline when there are several; '' when none. */
  content: z.string(),
  parts: z.array(LlmContentPartSchema).optional(),
  tool_calls: z.array(LlmToolCallSchema).optional(),
  /** On a `tool` message: the id of the call it answers. */
  tool_call_id: z.string().optional(),
  /** A participant's name (OpenAI `name`); on a `tool` message, the tool's name when sent. */
  name: z.string().optional(),
  /** On a response message: why the model stopped (`stop`, `length`, `tool_calls`, ...), as sent. */
  finish_reason: z.string().optional(),
});
export type LlmMessage = z.infer<typeof LlmMessageSchema>;

/** A tool the model was offered. `parameters` is its JSON schema as sent (an object, or text that is not JSON). */
export const LlmToolDefinitionSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  parameters: z.unknown().optional(),
});
export type LlmToolDefinition = z.infer<typeof LlmToolDefinitionSchema>;

/**
 * Request parameters under OpenAI's names; any other parameter a convention reports (e.g.
 * `tool_choice`, `response_format`, an SDK's `maxRetries`) is kept under the name it came with.
 */
export const LlmParametersSchema = z
  .object({
    temperature: z.number().optional(),
    max_tokens: z.number().optional(),
    top_p: z.number().optional(),
    top_k: z.number().optional(),
    frequency_penalty: z.number().optional(),
    presence_penalty: z.number().optional(),
    seed: z.number().optional(),
    /** Number of choices asked for. */
    n: z.number().optional(),
    stop: z.array(z.string()).optional(),
  })
  .catchall(z.unknown());
export type LlmParameters = z.infer<typeof LlmParametersSchema>;

/** The `llm` field of a span view: set on generation spans (not embeddings), null on every other span. */
export const LlmConversationSchema = z.object({
  /** The prompt, as the model saw it: system instructions first, then the turns, tool results as `tool` messages. */
  messages: z.array(LlmMessageSchema),
  /** The response: one message per choice. */
  output_messages: z.array(LlmMessageSchema),
  tools: z.array(LlmToolDefinitionSchema).optional(),
  parameters: LlmParametersSchema.optional(),
  /** Why the model stopped, one per choice, as the convention reports them. */
  finish_reasons: z.array(z.string()).optional(),
  /**
   * True when some text was cut: built from the trace view's capped `input` / `output`, or a
   * message's text longer than the trace view shows. GET /api/spans/{id} has it whole.
   */
  truncated: z.boolean().optional(),
});
export type LlmConversation = z.infer<typeof LlmConversationSchema>;
