/**
 * The one place the SDK reads the environment (as core/config.ts is for the service): the
 * service's address and key, and the standard OpenTelemetry exporter variables.
 */

export const DEFAULT_URL = 'http://localhost:3000';

export interface SdkEnvironment {
  /** `AGENT_EVAL_URL` */
  url?: string;
  /** `AGENT_EVAL_API_KEY` */
  apiKey?: string;
  /** `AGENT_EVAL_PROJECT` */
  project?: string;
  /** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: the whole URL spans are posted to. */
  otlpTracesEndpoint?: string;
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: a base URL; spans go to `{base}/v1/traces`. */
  otlpEndpoint?: string;
  /** `OTEL_EXPORTER_OTLP_TRACES_HEADERS`, else `OTEL_EXPORTER_OTLP_HEADERS`: `k=v,k2=v2`, values URL-encoded. */
  otlpHeaders: Record<string, string>;
  /** `OTEL_SERVICE_NAME` */
  serviceName?: string;
}

const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** `k=v,k2=v2` as the OTel specification writes headers (values percent-encoded). */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1).trim();
    if (!key) continue;
    try {
      out[key] = decodeURIComponent(raw);
    } catch {
      out[key] = raw;
    }
  }
  return out;
}

/** Reads the variables now (each call: tests and long-lived processes may change them). */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env): SdkEnvironment {
  return {
    url: nonEmpty(env.AGENT_EVAL_URL),
    apiKey: nonEmpty(env.AGENT_EVAL_API_KEY),
    project: nonEmpty(env.AGENT_EVAL_PROJECT),
    otlpTracesEndpoint: nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    otlpEndpoint: nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT),
    otlpHeaders: { ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME),
  };
}
