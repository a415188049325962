import { describe, expect, it } from 'vitest';
import { identityOf, isAdminIdentity } from '../../../core/auth/oidc.js';
import { csrfMatches } from '../../../core/auth/sessions.js';
import { safeNext } from '../../../api/routes/auth.js';
import { projectOfPath } from '../../../api/middleware/session-auth.js';
import { authHeaders, type Session } from '../../../ui/src/lib/api.js';

/** The small rules of signing in (docs/security.md, "Signing in"). */
describe('where a sign-in may send the browser back to', () => {
  it('keeps a page of this dashboard, with its query', () => {
    expect(safeNext('/runs?status=failed')).toBe('/runs?status=failed');
    expect(safeNext('/traces/abc')).toBe('/traces/abc');
  });

  it('refuses another site, the API, the sign-in page and odd paths, for /traces', () => {
    for (const bad of [
      'https://evil.example',
      '//evil.example',
      '/\\evil.example',
      '/api/auth/key',
      '/signin',
      'traces',
      '/a\nb',
      undefined,
      ['/runs'],
      `/${'x'.repeat(2001)}`,
    ]) {
      expect(safeNext(bad), JSON.stringify(bad)).toBe('/traces');
    }
  });
});

describe("a person's identity from the provider's claims", () => {
  it('is named by name, else preferred_username, else email, else subject; email lower-case', () => {
    expect(identityOf('https://idp', { sub: 's1', name: 'Ada Lovelace', email: 'Ada@Example.com', email_verified: true })).toEqual({
      issuer: 'https://idp',
      subject: 's1',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      emailVerified: true,
    });
    expect(identityOf('i', { sub: 's', preferred_username: 'ada', email: 'a@x' }).name).toBe('ada');
    expect(identityOf('i', { sub: 's', email: 'a@x' }).name).toBe('a@x');
    expect(identityOf('i', { sub: 's', name: '  ' }).name).toBe('s');
  });

  it('makes a server admin only of a listed email the provider verified', () => {
    const admins = ['ada@example.com'];
    expect(isAdminIdentity(identityOf('i', { sub: 's', email: 'ADA@example.com', email_verified: true }), admins)).toBe(true);
    expect(isAdminIdentity(identityOf('i', { sub: 's', email: 'ada@example.com' }), admins)).toBe(false);
    expect(isAdminIdentity(identityOf('i', { sub: 's', email: 'ada@example.com', email_verified: 'true' }), admins)).toBe(false);
    expect(isAdminIdentity(identityOf('i', { sub: 's', email: 'bob@example.com', email_verified: true }), admins)).toBe(false);
  });
});

describe('CSRF', () => {
  it('compares tokens whole', () => {
    expect(csrfMatches('abc', 'abc')).toBe(true);
    expect(csrfMatches('abd', 'abc')).toBe(false);
    expect(csrfMatches('ab', 'abc')).toBe(false);
    expect(csrfMatches(undefined, 'abc')).toBe(false);
  });

  it('the dashboard sends the token on writes only, and the project on every call', () => {
    const s: Session = { mode: 'session', user: null, key: null, csrfToken: 'tok', projectId: 'p1' };
    expect(authHeaders(s, 'GET')).toEqual({ 'x-project-id': 'p1' });
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) expect(authHeaders(s, method)).toEqual({ 'x-project-id': 'p1', 'x-csrf-token': 'tok' });
    expect(authHeaders({ ...s, mode: 'none', csrfToken: null }, 'POST')).toEqual({ 'x-project-id': 'p1' });
  });
});

describe("the project of a /api/projects/{id}/... route (a person's role is judged there)", () => {
  it('reads the path, decoded', () => {
    expect(projectOfPath('/api/projects/p1/members')).toBe('p1');
    expect(projectOfPath('/api/projects/a%3Ab/keys/k')).toBe('a:b');
    expect(projectOfPath('/api/projects')).toBeUndefined();
    expect(projectOfPath('/api/traces')).toBeUndefined();
  });
});
