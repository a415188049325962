import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout (pino); the level comes from config. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'agent-eval' } });
}
