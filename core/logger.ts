import { pino, type Logger } from 'pino';
import { safeLogDestination } from './log-destination.js';

export type { Logger };

/**
 * Structured JSON logs on stdout (pino); the level comes from config. A line stdout refuses (a
 * full disk, a closed pipe) is dropped and counted, never thrown (core/log-destination.ts).
 * `fd`: where to write instead of stdout (tests).
 */
export function createLogger(level: string, fd?: number): Logger {
  return pino({ level, base: { service: 'agent-eval' } }, safeLogDestination(fd));
}
