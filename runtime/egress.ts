import type { Config } from '../core/config.js';
import type { OwnEndpoint } from '../core/egress/policy.js';

/** `host:port` or `[v6]:port`; undefined when it is neither. */
function hostPort(text: string, defaultPort?: number): OwnEndpoint | undefined {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text.trim()) ?? /^([^:]+)(?::(\d+))?$/.exec(text.trim());
  const port = m?.[2] ? Number(m[2]) : defaultPort;
  return m && port ? { host: m[1], port } : undefined;
}

/** A store's URL as an endpoint (`postgres://u:p@db:5432/x` is db:5432); undefined when not a URL. */
export function urlEndpoint(text: string | undefined, defaultPort: (protocol: string) => number): OwnEndpoint | undefined {
  if (!text) return undefined;
  try {
    const url = new URL(text);
    if (!url.hostname) return undefined;
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || defaultPort(url.protocol) };
  } catch {
    return undefined;
  }
}

/**
 * The service's own endpoints known from its configuration, which the egress policy always
 * refuses: the stores (CLICKHOUSE_URL, DATABASE_URL, the gateway), Kafka's brokers, the Temporal
 * frontend, and this process's listeners on their configured ports. Ports chosen at start (port
 * 0, embedded PostgreSQL, the embedded Temporal dev server) are added by `startService` once known.
 */
export function configuredOwnEndpoints(config: Config): OwnEndpoint[] {
  const endpoints: Array<OwnEndpoint | undefined> = [
    ...[config.port, config.otlpGrpcPort, config.otlpHttpPort, config.healthPort].filter((port) => port > 0).map((port) => ({ host: config.host, port })),
    urlEndpoint(config.clickhouseUrl, (protocol) => (protocol === 'https:' ? 8443 : 8123)),
    urlEndpoint(config.databaseUrl, () => 5432),
    config.clickhouseGateway && config.clickhouseGateway.port > 0 ? { host: config.clickhouseGateway.host, port: config.clickhouseGateway.port } : undefined,
    config.temporal.address ? hostPort(config.temporal.address, 7233) : undefined,
    ...(config.kafka?.brokers ?? []).map((broker) => hostPort(broker, 9092)),
  ];
  return endpoints.filter((e): e is OwnEndpoint => e !== undefined);
}

/** The endpoint an URL this process serves on (`http://127.0.0.1:41234`) listens at. */
export function endpointOfUrl(url: string | undefined): OwnEndpoint[] {
  const e = urlEndpoint(url, (protocol) => (protocol === 'https:' ? 443 : 80));
  return e ? [e] : [];
}
