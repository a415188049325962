import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { systemLookup, type EgressPolicy, type LookupAll } from './policy.js';

/** A destination the egress policy refuses: nothing was sent, no connection was attempted. */
export class EgressRefusedError extends Error {
  constructor(readonly reason: string) {
    super(`refused by the egress policy: ${reason}`);
    this.name = 'EgressRefusedError';
  }
}

/** The requests the service sends to URLs users supplied: a JSON POST, its headers, a signal. */
export interface EgressRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Always `manual` here, whatever is asked; named so the global fetch, passed where no policy applies, follows nothing either. */
  redirect?: 'manual';
}

/**
 * fetch through the egress policy. Redirects are never followed: a 3xx comes back as the answer
 * (its Location is not fetched). Rejects with {@link EgressRefusedError} when the policy refuses
 * the destination, otherwise as fetch does (a network error, the signal's reason).
 */
export type EgressFetch = (url: string, init: EgressRequest) => Promise<Response>;

export interface Egress {
  /** At registration: why a URL whose host is a literal address is refused (EgressPolicy.refusalOfUrl). */
  refusalOfUrl(url: string): Promise<string | undefined>;
  fetch: EgressFetch;
  /** Closes the connections kept alive. */
  close(): Promise<void>;
}

/**
 * The one way the service calls a URL a user supplied. The check is made where the connection is
 * made: the connector resolves the host itself, asks the policy about every address, and connects
 * to the first of the addresses it asked about, so a name cannot resolve to one address for the
 * check and another for the connection. TLS still verifies the certificate for the host name.
 */
export function createEgress(policy: EgressPolicy, options: { lookup?: LookupAll } = {}): Egress {
  const lookup = options.lookup ?? systemLookup;
  const connectTo = buildConnector({});
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname;
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    const resolving = isIP(host) ? Promise.resolve([host]) : lookup(host);
    void resolving
      .then(async (addresses) => {
        if (addresses.length === 0) throw new Error(`${host} resolves to no address`);
        const refusal = await policy.refusalOfConnection({ host, port, addresses });
        if (refusal) throw new EgressRefusedError(refusal);
        // The address judged, not the name: nothing resolves it again. TLS names the host.
        connectTo({ ...opts, hostname: addresses[0], servername: opts.servername ?? (isIP(host) ? undefined : host) }, callback);
      })
      .catch((err: Error) => callback(err, null));
  };
  const agent = new Agent({ connect });
  return {
    refusalOfUrl: (url) => policy.refusalOfUrl(url),
    async fetch(url, init) {
      try {
        const res = await undiciFetch(url, { ...init, redirect: 'manual', dispatcher: agent });
        // undici's Response is the one Node's global fetch returns (Node bundles undici).
        return res as unknown as Response;
      } catch (err) {
        // fetch wraps connector errors as TypeError('fetch failed', {cause}).
        const cause = (err as { cause?: unknown } | null)?.cause;
        if (cause instanceof EgressRefusedError) throw cause;
        throw err;
      }
    },
    close: () => agent.close(),
  };
}

/** Whether an answer is a redirect (never followed; its body is not shown either). */
export const isRedirect = (status: number) => status >= 300 && status < 400;
