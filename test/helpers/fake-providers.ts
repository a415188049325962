import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttpServer } from './close-server.js';

/**
 * Local stand-ins for the four LLM providers, speaking each one's real wire protocol, so the
 * official SDK clients can be pointed at them by base URL:
 *
 * - `anthropic`: Anthropic Messages, `POST /v1/messages`, the verdict as a `tool_use` block;
 * - `openai`: OpenAI Chat Completions, `POST /v1/chat/completions`, the verdict as JSON content
 *   (`response_format: json_schema`) or as a forced function call (`tools`);
 * - `vertex-gemini`: Vertex AI `POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent`,
 *   the verdict as the JSON text of the first candidate;
 * - `vertex-anthropic`: Claude on Vertex AI, `POST /v1/projects/{p}/locations/{l}/publishers/anthropic/models/{m}:rawPredict`,
 *   an Anthropic Messages body (no `model`, `anthropic_version` in the body) and answer.
 *
 * Each request is answered by the next queued answer, else by the default one.
 */

export type FakeProviderKind = 'anthropic' | 'openai' | 'vertex-gemini' | 'vertex-anthropic';

export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export type FakeAnswer =
  /** A structured answer: the tool input / JSON the model returns. */
  | { verdict: unknown; usage?: { input: number; output: number; cached?: number }; model?: string }
  /** Free text only: no tool call, or text that is not JSON. */
  | { text: string; usage?: { input: number; output: number } }
  /** An HTTP error in the provider's own error shape. */
  | { status: number; message?: string; headers?: Record<string, string> };

export interface FakeProvider {
  kind: FakeProviderKind;
  /** The base URL to configure (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GOOGLE_VERTEX_BASE_URL, ANTHROPIC_VERTEX_BASE_URL). */
  baseUrl: string;
  requests: FakeRequest[];
  /** Answers for the next requests, in order. */
  queue(...answers: FakeAnswer[]): void;
  /** The answer when nothing is queued (default: a verdict of 0.8). */
  setDefault(answer: FakeAnswer | ((req: FakeRequest) => FakeAnswer)): void;
  close(): Promise<void>;
}

export const DEFAULT_VERDICT = { score: 0.8, reason: 'mostly right', evidence: ['It is sunny'] };

const GEMINI_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):generateContent$/;
const CLAUDE_VERTEX_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):rawPredict$/;

function errorBody(kind: FakeProviderKind, status: number, message: string): unknown {
  switch (kind) {
    case 'anthropic':
    case 'vertex-anthropic':
      return { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error', message } };
    case 'openai':
      return { error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'server_error', code: null, param: null } };
    case 'vertex-gemini':
      return { error: { code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT' } };
  }
}

/** The model the request asked for: in the body (Anthropic, OpenAI) or the path (Vertex). */
function requestedModel(kind: FakeProviderKind, path: string, body: Record<string, unknown>): string {
  if (kind === 'vertex-gemini') return GEMINI_PATH.exec(path)?.[3] ?? 'unknown';
  if (kind === 'vertex-anthropic') return CLAUDE_VERTEX_PATH.exec(path)?.[3] ?? 'unknown';
  return String(body.model);
}

function success(kind: FakeProviderKind, req: FakeRequest, answer: Exclude<FakeAnswer, { status: number }>): unknown {
  const model = ('model' in answer && answer.model) || requestedModel(kind, req.path, req.body);
  const usage = answer.usage ?? { input: 120, output: 30 };
  const cached = 'verdict' in answer ? (answer.usage?.cached ?? 0) : 0;
  const json = 'verdict' in answer ? JSON.stringify(answer.verdict) : answer.text;
  switch (kind) {
    case 'anthropic':
    case 'vertex-anthropic': {
      const tools = (req.body.tools as Array<{ name: string }> | undefined) ?? [];
      const content =
        'verdict' in answer
          ? [{ type: 'tool_use', id: 'toolu_01', name: tools[0]?.name ?? 'record_verdict', input: answer.verdict }]
          : [{ type: 'text', text: answer.text }];
      return {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: 'verdict' in answer ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: usage.input - cached, output_tokens: usage.output, cache_read_input_tokens: cached, cache_creation_input_tokens: 0 },
      };
    }
    case 'openai': {
      const viaTool = Array.isArray(req.body.tools);
      const message =
        viaTool && 'verdict' in answer
          ? {
              role: 'assistant',
              content: null,
              refusal: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: openaiToolName(req.body), arguments: json } }],
            }
          : { role: 'assistant', content: json, refusal: null };
      return {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message, finish_reason: viaTool ? 'tool_calls' : 'stop', logprobs: null }],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
          prompt_tokens_details: { cached_tokens: cached },
        },
      };
    }
    case 'vertex-gemini':
      return {
        candidates: [{ content: { role: 'model', parts: [{ text: json }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: {
          promptTokenCount: usage.input,
          candidatesTokenCount: usage.output,
          totalTokenCount: usage.input + usage.output,
          cachedContentTokenCount: cached,
        },
        modelVersion: model,
      };
  }
}

/** The function an OpenAI request forces (its first tool's name), `record_verdict` when it names none. */
function openaiToolName(body: Record<string, unknown>): string {
  const tools = body.tools as Array<{ function?: { name?: string } }> | undefined;
  return tools?.[0]?.function?.name ?? 'record_verdict';
}

function routeOk(kind: FakeProviderKind, method: string, path: string): boolean {
  if (method !== 'POST') return false;
  switch (kind) {
    case 'anthropic':
      return path === '/v1/messages';
    case 'openai':
      return path === '/v1/chat/completions';
    case 'vertex-gemini':
      return GEMINI_PATH.test(path);
    case 'vertex-anthropic':
      return CLAUDE_VERTEX_PATH.test(path);
  }
}

export async function startFakeProvider(kind: FakeProviderKind): Promise<FakeProvider> {
  const requests: FakeRequest[] = [];
  const queued: FakeAnswer[] = [];
  let fallback: FakeAnswer | ((req: FakeRequest) => FakeAnswer) = { verdict: DEFAULT_VERDICT };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const text = Buffer.concat(chunks).toString('utf8');
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (!routeOk(kind, req.method ?? '', path)) return send(404, errorBody(kind, 404, `no route ${req.method} ${path}`));
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return send(400, errorBody(kind, 400, 'body is not JSON'));
      }
      const record: FakeRequest = { method: req.method ?? '', path, headers: req.headers, body };
      requests.push(record);
      const answer = queued.shift() ?? (typeof fallback === 'function' ? fallback(record) : fallback);
      if ('status' in answer) return send(answer.status, errorBody(kind, answer.status, answer.message ?? `fake ${answer.status}`), answer.headers);
      send(200, success(kind, record, answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const root = `http://127.0.0.1:${port}`;
  // Each SDK appends its own path to its base URL: OpenAI and AnthropicVertex after a `/v1` the base holds.
  const baseUrl = kind === 'openai' || kind === 'vertex-anthropic' ? `${root}/v1` : root;
  return {
    kind,
    baseUrl,
    requests,
    queue: (...answers) => void queued.push(...answers),
    setDefault(answer) {
      fallback = answer;
    },
    close: () => closeHttpServer(server),
  };
}

/** The environment that points all four providers at the fakes (a fixed Vertex token: no Google auth server). */
export function fakeProviderEnv(fakes: Partial<Record<FakeProviderKind, FakeProvider>>): Record<string, string> {
  const env: Record<string, string> = {};
  if (fakes.anthropic) Object.assign(env, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: fakes.anthropic.baseUrl });
  if (fakes.openai) Object.assign(env, { OPENAI_API_KEY: 'sk-openai-test', OPENAI_BASE_URL: fakes.openai.baseUrl });
  if (fakes['vertex-gemini'] || fakes['vertex-anthropic']) {
    Object.assign(env, { GOOGLE_CLOUD_PROJECT: 'test-project', GOOGLE_CLOUD_LOCATION: 'us-central1', AGENT_EVAL_VERTEX_ACCESS_TOKEN: 'ya29.test-token' });
  }
  if (fakes['vertex-gemini']) env.GOOGLE_VERTEX_BASE_URL = fakes['vertex-gemini'].baseUrl;
  if (fakes['vertex-anthropic']) Object.assign(env, { ANTHROPIC_VERTEX_BASE_URL: fakes['vertex-anthropic'].baseUrl, CLOUD_ML_REGION: 'us-east5' });
  return env;
}
