import type { ConfigEnv } from '../config.js';
import { ConfigError } from '../errors.js';

/** The LLM providers' settings (docs/judges.md): which exist, their default judge models, and how the environment configures them. */

/** The LLM providers judges can use (docs/judges.md). */
export const LLM_PROVIDERS = ['anthropic', 'openai', 'vertex-gemini', 'vertex-anthropic'] as const;
export type LlmProviderName = (typeof LLM_PROVIDERS)[number];

/** Each provider's judge model unless JUDGE_MODEL_* or a scorer's `model` says otherwise. */
export const DEFAULT_JUDGE_MODELS: Record<LlmProviderName, string> = {
  anthropic: 'claude-sonnet-4-6',
  openai: 'gpt-5.4-mini',
  'vertex-gemini': 'gemini-3.8-flash',
  'vertex-anthropic': 'claude-sonnet-4-6',
};

/** The LLM providers configured from their own environment variables, and how judges use them. */
export interface LlmSettings {
  anthropic?: { apiKey: string; baseUrl?: string; model: string };
  openai?: { apiKey: string; baseUrl?: string; model: string; structuredOutput: 'json_schema' | 'tool' };
  'vertex-gemini'?: { project: string; location: string; baseUrl?: string; model: string; accessToken?: string };
  'vertex-anthropic'?: { project: string; region: string; baseUrl?: string; model: string; accessToken?: string };
  /** JUDGE_PROVIDER, else the first configured of LLM_PROVIDERS; undefined when none is. */
  defaultProvider?: LlmProviderName;
  /** Answers a judge may give before an unusable one scores 0 (the first included). */
  maxAnswerAttempts: number;
  maxOutputTokens: number;
}

/**
 * The environment variables the providers' settings are read from (as a zod `pick` mask of the
 * environment's schema): what a client process reads of its own environment to play a local
 * run's simulated users (sdk/simulated-user.ts), with the service's meanings and defaults.
 */
export const LLM_ENV = {
  ANTHROPIC_API_KEY: true,
  ANTHROPIC_BASE_URL: true,
  OPENAI_API_KEY: true,
  OPENAI_BASE_URL: true,
  GOOGLE_CLOUD_PROJECT: true,
  GOOGLE_CLOUD_LOCATION: true,
  GOOGLE_VERTEX_BASE_URL: true,
  ANTHROPIC_VERTEX_PROJECT_ID: true,
  CLOUD_ML_REGION: true,
  ANTHROPIC_VERTEX_BASE_URL: true,
  AGENT_EVAL_VERTEX_ACCESS_TOKEN: true,
  JUDGE_PROVIDER: true,
  JUDGE_MODEL_ANTHROPIC: true,
  JUDGE_MODEL_OPENAI: true,
  JUDGE_MODEL_VERTEX_GEMINI: true,
  JUDGE_MODEL_VERTEX_ANTHROPIC: true,
  JUDGE_OPENAI_STRUCTURED_OUTPUT: true,
  JUDGE_MAX_ANSWER_ATTEMPTS: true,
  JUDGE_MAX_OUTPUT_TOKENS: true,
} as const;
export type LlmEnv = Pick<ConfigEnv, keyof typeof LLM_ENV>;

/**
 * The providers whose credentials are set: Anthropic and OpenAI by API key, the two Vertex ones
 * by cloud project (credentials then come from application default credentials, or from
 * AGENT_EVAL_VERTEX_ACCESS_TOKEN). JUDGE_PROVIDER must name one of them.
 */
export function llmSettings(e: LlmEnv): LlmSettings {
  const location = e.GOOGLE_CLOUD_LOCATION ?? 'global';
  const claudeProject = e.ANTHROPIC_VERTEX_PROJECT_ID ?? e.GOOGLE_CLOUD_PROJECT;
  const settings: LlmSettings = {
    anthropic: e.ANTHROPIC_API_KEY ? { apiKey: e.ANTHROPIC_API_KEY, baseUrl: e.ANTHROPIC_BASE_URL, model: e.JUDGE_MODEL_ANTHROPIC } : undefined,
    openai: e.OPENAI_API_KEY
      ? { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL, model: e.JUDGE_MODEL_OPENAI, structuredOutput: e.JUDGE_OPENAI_STRUCTURED_OUTPUT }
      : undefined,
    'vertex-gemini': e.GOOGLE_CLOUD_PROJECT
      ? {
          project: e.GOOGLE_CLOUD_PROJECT,
          location,
          baseUrl: e.GOOGLE_VERTEX_BASE_URL,
          model: e.JUDGE_MODEL_VERTEX_GEMINI,
          accessToken: e.AGENT_EVAL_VERTEX_ACCESS_TOKEN,
        }
      : undefined,
    'vertex-anthropic': claudeProject
      ? {
          project: claudeProject,
          region: e.CLOUD_ML_REGION ?? location,
          baseUrl: e.ANTHROPIC_VERTEX_BASE_URL,
          model: e.JUDGE_MODEL_VERTEX_ANTHROPIC,
          accessToken: e.AGENT_EVAL_VERTEX_ACCESS_TOKEN,
        }
      : undefined,
    maxAnswerAttempts: e.JUDGE_MAX_ANSWER_ATTEMPTS,
    maxOutputTokens: e.JUDGE_MAX_OUTPUT_TOKENS,
  };
  if (e.JUDGE_PROVIDER && !settings[e.JUDGE_PROVIDER]) {
    throw new ConfigError(
      `Invalid configuration:\n  JUDGE_PROVIDER: '${e.JUDGE_PROVIDER}' is not configured (${PROVIDER_CREDENTIALS[e.JUDGE_PROVIDER]} is not set)`,
    );
  }
  settings.defaultProvider = e.JUDGE_PROVIDER ?? LLM_PROVIDERS.find((name) => settings[name] !== undefined);
  return settings;
}

/** The variable that configures each provider, for messages. */
export const PROVIDER_CREDENTIALS: Record<LlmProviderName, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  'vertex-gemini': 'GOOGLE_CLOUD_PROJECT',
  'vertex-anthropic': 'GOOGLE_CLOUD_PROJECT (or ANTHROPIC_VERTEX_PROJECT_ID)',
};
