import { createAuthenticator } from '../core/auth/authenticator.js';
import { createLogger } from '../core/logger.js';
import { createRateLimiter } from '../core/limits/rate-limiter.js';
import { openServiceMetadata } from '../test/helpers/metadata-store.js';
import { startTestService } from '../test/helpers/server.js';
import { round } from './lib.js';

/**
 * What credentials and rate limits cost one request, without HTTP around them: the API key check
 * (a cache hit: SHA-256 of the key and a constant-time compare) and the rate limiter's count, each
 * timed over `calls` calls in this process against the real stores of an in-process service.
 * Run: `npm run bench -- auth-overhead [--runs N]`.
 */
export async function benchAuthOverhead(calls: number) {
  const svc = await startTestService({ AGENT_EVAL_ROLES: 'api', TEMPORAL_ADDRESS: '127.0.0.1:1' });
  const metadata = openServiceMetadata(svc.dataDir);
  const auth = createAuthenticator({ mode: 'required', keys: metadata.keys, cacheTtlMs: 60_000 });
  const limiter = createRateLimiter(metadata.rateLimits, { ingest: 1e12, query: 1e12, evalRuns: 1e12 }, createLogger('silent'));
  try {
    const headers = { 'x-api-key': svc.apiKey!, 'x-project-id': svc.defaultProjectId };
    await auth.authenticate(headers);
    await limiter.take(svc.defaultProjectId, 'ingest');
    const time = async (fn: () => Promise<unknown>) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) await fn();
      return round(Number(process.hrtime.bigint() - start) / 1000 / calls, 2);
    };
    const authUs = await time(() => auth.authenticate(headers));
    const limitUs = await time(() => limiter.take(svc.defaultProjectId, 'ingest'));
    const noneAuth = createAuthenticator({ mode: 'none', keys: metadata.keys, cacheTtlMs: 0 });
    const noneUs = await time(() => noneAuth.authenticate(headers));
    return {
      calls,
      api_key_check_us: authUs,
      auth_mode_none_us: noneUs,
      rate_limit_take_us: limitUs,
      added_per_request_us: round(authUs - noneUs + limitUs, 2),
    };
  } finally {
    await limiter.close();
    await auth.close();
    await metadata.close();
    await svc.stop();
  }
}
