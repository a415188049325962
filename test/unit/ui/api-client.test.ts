import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, client, failureWords, queryOf, type Session } from '../../../ui/src/lib/api.js';
import type { TraceListParams } from '../../../sdk/browser.js';
import { REPO_ROOT } from '../../helpers/processes.js';

/** The dashboard's calls go through the SDK's typed client over its own session transport (ui/src/lib/api.ts). */
const signedIn: Session = { mode: 'session', user: null, key: null, csrfToken: 'csrf-1', projectId: 'p1' };

function answer(status: number, body?: unknown) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return Promise.resolve(new Response(body === undefined ? null : JSON.stringify(body), { status }));
  });
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

describe('the dashboard client', () => {
  it('reads same-origin with the project header and no CSRF token; the query as the API names it', async () => {
    const calls = answer(200, { traces: [], total: 0 });
    const list = await client({ session: signedIn }).traces.list(queryOf<TraceListParams>(new URLSearchParams({ limit: '50', status: 'error' })));
    expect(list.total).toBe(0);
    expect(calls[0].url).toBe('/api/traces?limit=50&status=error');
    expect(calls[0].init.credentials).toBe('same-origin');
    const headers = calls[0].init.headers as Record<string, string>;
    expect(headers['x-project-id']).toBe('p1');
    expect(headers['x-csrf-token']).toBeUndefined();
  });

  it('sends the CSRF token and a JSON body with every write, and the project named for keys', async () => {
    const calls = answer(201, { id: 'k', key: 'ae_live_x', name: 'ci' });
    await client({ session: signedIn }).keys.create({ name: 'ci', role: 'member', env: 'live' }, 'p 2');
    expect(calls[0].url).toBe('/api/projects/p%202/keys');
    expect(calls[0].init.method).toBe('POST');
    expect((calls[0].init.headers as Record<string, string>)['x-csrf-token']).toBe('csrf-1');
    expect(JSON.parse(calls[0].init.body as string)).toEqual({ name: 'ci', role: 'member', env: 'live' });
  });

  it('turns a refusal into an ApiError with words (401: sign in again) and does not retry', async () => {
    const calls = answer(401, { error: 'Unauthorized', code: 'UNAUTHORIZED' });
    const err = await client({ session: signedIn })
      .runs.get('r1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).message).toMatch(/Sign in again/);
    expect(calls).toHaveLength(1);
  });

  it('lets an abort through as an AbortError', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new DOMException('aborted', 'AbortError')));
    const c = new AbortController();
    c.abort(new DOMException('aborted', 'AbortError'));
    await expect(client({ session: signedIn, signal: c.signal }).scores.list('t')).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a service that does not answer is status 0 with words', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('fetch failed')));
    await expect(client({ session: null }).auth.state()).rejects.toMatchObject({ status: 0 });
  });
});

describe('the browser-safe entry of the SDK', () => {
  it('imports no node: module, anywhere below it', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from ['"]node:|process\.env/);
      for (const m of text.matchAll(/^import (?!type )[^;]*? from ['"](\.[^'"]+)['"]/gm)) visit(path.resolve(path.dirname(file), m[1].replace(/\.js$/, '.ts')));
      for (const m of text.matchAll(/^export [^;]*? from ['"](\.[^'"]+)['"]/gm))
        if (!/^export type/.test(m[0])) visit(path.resolve(path.dirname(file), m[1].replace(/\.js$/, '.ts')));
    };
    visit(path.join(REPO_ROOT, 'sdk', 'browser.ts'));
    visit(path.join(REPO_ROOT, 'ui', 'src', 'lib', 'runs.ts'));
    expect([...seen].map((f) => path.relative(REPO_ROOT, f))).toEqual(
      expect.arrayContaining(['sdk/endpoints.ts', 'sdk/errors.ts', 'core/model/run-status.ts', 'core/model/id-rules.ts']),
    );
  });

  it('words a failure: the sentence given for its status, else its own message', () => {
    const forbidden = new ApiError(403, 'You may not do that here.');
    expect(failureWords(forbidden, { 403: 'Needs prompts:write.' })).toBe('Needs prompts:write.');
    expect(failureWords(forbidden, { 404: 'Not there.' })).toBe('You may not do that here.');
    expect(failureWords(new Error('boom'))).toBe('boom');
    expect(failureWords('plain words')).toBe('plain words');
  });
});
