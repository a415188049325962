import Anthropic from '@anthropic-ai/sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import type { LlmSettings } from './settings.js';
import { providerError } from './errors.js';
import { fixedTokenAuthClient } from './vertex-auth.js';
import type { LlmProvider, LlmProviderName, StructuredRequest, StructuredResponse } from './types.js';

/** What both clients share: Claude's Messages API (AnthropicVertex rewrites it to `:rawPredict`). */
type MessagesClient = Pick<Anthropic, 'messages'> | Pick<AnthropicVertex, 'messages'>;

/**
 * Claude through the Messages API: the answer is forced through one tool (`tool_choice` names
 * it) whose `input_schema` is the verdict's schema, and read from the `tool_use` block. Retries
 * are left to the caller (the LLM call activity's policy): the SDK's own are off.
 */
function messagesProvider(name: LlmProviderName, client: MessagesClient, defaultModel: string): LlmProvider {
  return {
    name,
    defaultModel,
    async structured(req: StructuredRequest): Promise<StructuredResponse> {
      const model = req.model ?? defaultModel;
      let message: Anthropic.Message;
      try {
        message = await client.messages.create(
          {
            model,
            max_tokens: req.maxTokens,
            ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
            system: req.system,
            messages: req.messages,
            tools: [{ name: req.tool.name, description: req.tool.description, input_schema: req.tool.schema as Anthropic.Tool.InputSchema }],
            tool_choice: { type: 'tool', name: req.tool.name, disable_parallel_tool_use: true },
          },
          { timeout: req.timeoutMs, maxRetries: 0, signal: req.signal },
        );
      } catch (err) {
        throw providerError(name, err, req.signal);
      }
      const u = message.usage;
      const cacheRead = u.cache_read_input_tokens ?? 0;
      // Anthropic counts cached and cache-written input apart from input_tokens; ours includes them.
      const usage = {
        input_tokens: u.input_tokens + cacheRead + (u.cache_creation_input_tokens ?? 0),
        output_tokens: u.output_tokens,
        cached_input_tokens: cacheRead,
      };
      const toolUse = message.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use' && block.name === req.tool.name);
      const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      return {
        value: toolUse?.input,
        problem: toolUse
          ? undefined
          : `the model did not call ${req.tool.name} (stop reason ${message.stop_reason ?? 'none'})${text ? `; it wrote: ${text.slice(0, 200)}` : ''}`,
        raw: toolUse ? toolUse.input : text,
        model: message.model || model,
        usage,
        stopReason: message.stop_reason ?? null,
      };
    },
  };
}

/** Anthropic's API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL). */
export function anthropicProvider(settings: NonNullable<LlmSettings['anthropic']>): LlmProvider {
  // Every option is given, so the SDK reads nothing from the environment itself (STYLE 8).
  const client = new Anthropic({ apiKey: settings.apiKey, authToken: null, baseURL: settings.baseUrl ?? 'https://api.anthropic.com', maxRetries: 0 });
  return messagesProvider('anthropic', client, settings.model);
}

/**
 * Claude on Vertex AI (project and region; Google credentials from application default
 * credentials, or a fixed access token when AGENT_EVAL_VERTEX_ACCESS_TOKEN is set).
 * ANTHROPIC_VERTEX_BASE_URL points it elsewhere (a proxy, a test server).
 */
export function vertexAnthropicProvider(settings: NonNullable<LlmSettings['vertex-anthropic']>): LlmProvider {
  const client = new AnthropicVertex({
    projectId: settings.project,
    region: settings.region,
    ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
    ...(settings.accessToken ? { authClient: fixedTokenAuthClient(settings.accessToken, settings.project) } : {}),
    maxRetries: 0,
  });
  return messagesProvider('vertex-anthropic', client, settings.model);
}
