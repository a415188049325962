import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ShapeOutput, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceApiError } from '../../sdk/errors.js';

/** Characters of one tool answer at most: a few thousand tokens, room left in a model's context. */
export const MAX_ANSWER_CHARS = 24_000;

/** Cuts `text` to `max` characters, saying how much was left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** A tool's answer: JSON, cut to {@link MAX_ANSWER_CHARS} (the tools size their answers below it; this is the last guard). */
export function answer(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: clip(JSON.stringify(value, null, 1), MAX_ANSWER_CHARS) }] };
}

/**
 * A failed call as a tool error the model can read: the API's status, code and message (its
 * error body, the SPEC's), never a stack. What is not the API's answer is a plain error.
 */
export function toolError(err: unknown): CallToolResult {
  let text: string;
  if (err instanceof ServiceApiError) {
    const body = (err.body && typeof err.body === 'object' ? err.body : {}) as { error?: unknown; message?: unknown; details?: unknown };
    const message = typeof body.error === 'string' ? body.error : typeof body.message === 'string' ? body.message : `HTTP ${err.status}`;
    const details = body.details === undefined ? '' : ` ${clip(JSON.stringify(body.details), 1_000)}`;
    const retry = err.retryAfterSeconds !== undefined ? ` (retry after ${err.retryAfterSeconds} s)` : '';
    text = `API error ${err.status}${err.code ? ` ${err.code}` : ''}: ${message}${details}${retry}`;
  } else {
    text = `Error: ${err instanceof Error ? err.message : String(err)}`;
  }
  return { isError: true, content: [{ type: 'text', text: clip(text, 2_000) }] };
}

/** Runs a tool's body, answering its result or its error. */
export async function attempt(body: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return answer(await body());
  } catch (err) {
    return toolError(err);
  }
}

/** Registers a tool that only reads (readOnlyHint): it answers what `read` resolves to, or the error it throws ({@link attempt}). */
export function readTool<S extends ZodRawShapeCompat>(
  server: McpServer,
  name: string,
  tool: { title: string; description: string; inputSchema: S },
  read: (args: ShapeOutput<S>) => Promise<unknown>,
): void {
  // The SDK's callback type is conditional on the shape, which TypeScript cannot resolve for a generic S.
  const answerOf = ((args: ShapeOutput<S>) => attempt(() => read(args))) as unknown as ToolCallback<S>;
  server.registerTool(name, { ...tool, annotations: { readOnlyHint: true } }, answerOf);
}
