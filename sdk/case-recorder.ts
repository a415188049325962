import { AsyncLocalStorage } from 'node:async_hooks';
import type { TokenUsage, ToolCall } from '../core/model/eval-case.js';

/**
 * What an agent did during one eval case, gathered from the spans it made with this SDK: its
 * tool calls (for the `toolSelection` scorer) and its models' token usage (for
 * `tokenEfficiency`). `evaluate()` opens a recording around each case; spans made outside one
 * record nothing.
 */
export interface CaseRecording {
  toolCalls: ToolCall[];
  usage: TokenUsage | null;
}

const storage = new AsyncLocalStorage<CaseRecording>();

export function recordCase<T>(fn: () => T): { recording: CaseRecording; result: T } {
  const recording: CaseRecording = { toolCalls: [], usage: null };
  return { recording, result: storage.run(recording, fn) };
}

export function noteToolCall(call: ToolCall): void {
  storage.getStore()?.toolCalls.push(call);
}

export function noteUsage(inputTokens: number, outputTokens: number): void {
  const rec = storage.getStore();
  if (!rec || (!inputTokens && !outputTokens)) return;
  rec.usage = { input_tokens: (rec.usage?.input_tokens ?? 0) + inputTokens, output_tokens: (rec.usage?.output_tokens ?? 0) + outputTokens };
}
