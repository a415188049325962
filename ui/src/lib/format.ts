/** Numbers and times as people read them. */

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms < 1) return `${Number(ms.toFixed(2))} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(ms < 10_000 ? 2 : 1))} s`;
  const min = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${min} min ${s} s`;
}

export function formatCount(n: number): string {
  return Number.isFinite(n) ? n.toLocaleString('en-US') : '-';
}

/** Local date and time with seconds, e.g. "2026-03-04 14:05:09". */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "3 min ago" style, for the newest traces. */
export function formatAgo(iso: string, now = Date.now()): string {
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(s)) return '';
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** The colour family of a span: its component type when known, else its span type. */
export function spanKind(span: { type: string; component_type: string | null }): string {
  return span.component_type ?? span.type;
}

/** An ISO time as a `datetime-local` input's value, in the browser's time zone (minutes). */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * The service's other OTLP receivers, as the empty states name them beside this port's /v1/traces:
 * " (gRPC: port 4317, OTLP/HTTP also on port 4318)", or inside a parenthesis already open
 * (`inline`) "; gRPC on port 4317, OTLP/HTTP also on port 4318"; '' when the service names none.
 */
export function otlpPortsText(ports: { otlp_grpc_port: number | null; otlp_http_port: number | null } | null, inline = false): string {
  const parts = [
    ports?.otlp_grpc_port ? `gRPC${inline ? ' on' : ':'} port ${ports.otlp_grpc_port}` : null,
    ports?.otlp_http_port ? `OTLP/HTTP also on port ${ports.otlp_http_port}` : null,
  ].filter((p): p is string => p !== null);
  if (parts.length === 0) return '';
  return inline ? `; ${parts.join(', ')}` : ` (${parts.join(', ')})`;
}
