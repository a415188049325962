import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

/**
 * deploy/helm/agent-eval: `helm lint` and `helm template` with the Helm that scripts/helm.sh
 * builds from the Go module proxy, and the rendered manifests checked against the values.
 */
const SCRIPT = fileURLToPath(new URL('../../scripts/helm.sh', import.meta.url));
const CHART = fileURLToPath(new URL('../../deploy/helm/agent-eval', import.meta.url));

/** The parts of rendered objects the tests read (Deployment, Service, HPA, Job). */
interface Container {
  image: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  envFrom: unknown[];
  ports: Array<{ name: string; containerPort: number }>;
  resources: { requests?: Record<string, string> };
  readinessProbe: Record<string, unknown>;
  startupProbe: Record<string, unknown>;
  livenessProbe: Record<string, unknown>;
}
interface Spec {
  replicas?: number;
  selector: { matchLabels?: Record<string, string>; [label: string]: unknown };
  template: { metadata: { annotations: Record<string, string> }; spec: { containers: Container[] } };
  ports: Array<{ port: number; targetPort: string }>;
  metrics: Array<{ resource: { target: { averageUtilization: number } } }>;
  podMetricsEndpoints?: Array<{ port: string; path: string; interval: string; authorization: unknown }>;
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Spec;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const VALUES = {
  clickhouse: { url: 'http://agent_eval:ch-pass@chi-agent-eval:8123', cluster: 'agent_eval' },
  postgresql: { url: 'postgres://agent_eval:pg-pass@agent-eval-pg-rw:5432/agent_eval' },
  kafka: { brokers: 'agent-eval-kafka-bootstrap:9092', partitions: 12 },
  temporal: { address: 'temporal-frontend:7233', namespace: 'evals' },
  secrets: { jwtSecret: 'a-test-secret-of-at-least-32-characters', anthropicApiKey: 'sk-ant-test', metricsToken: 'a-metrics-token-of-at-least-32-characters' },
  env: { LOG_LEVEL: 'debug', RETENTION_DAYS: '30' },
  roles: {
    api: { replicas: 3 },
    collector: { replicas: 4, autoscaling: { enabled: false } },
    ingester: { replicas: 2, resources: { requests: { cpu: '2', memory: '1Gi' } } },
    worker: { replicas: 5 },
  },
};

let helm = '';
let dir = '';

function run(args: string[]): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(helm, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HELM_CACHE_HOME: dir, HELM_CONFIG_HOME: dir, HELM_DATA_HOME: dir },
    });
    return { code: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

function valuesFile(name: string, values: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(values)); // JSON is YAML
  return file;
}

function render(values: unknown): Manifest[] {
  const result = run(['template', 'ae', CHART, '-f', valuesFile('render.yaml', values)]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

const find = (manifests: Manifest[], kind: string, name: string): Manifest => {
  const m = manifests.find((x) => x.kind === kind && x.metadata.name === name);
  if (!m) throw new Error(`no ${kind} ${name} in ${manifests.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return m;
};

describe('the Helm chart', () => {
  let manifests: Manifest[];

  beforeAll(() => {
    helm = execFileSync('bash', [SCRIPT, 'path'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 1_200_000 }).trim();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'helm-test-'));
    manifests = render(VALUES);
  }, 1_260_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('passes helm lint', () => {
    const result = run(['lint', CHART, '--strict', '-f', valuesFile('lint.yaml', VALUES)]);
    expect(result.stdout + result.stderr).toContain('0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it('renders a Deployment per role with its replicas, resources and role', () => {
    const replicas = { api: 3, collector: 4, ingester: 2, worker: 5 };
    for (const [role, count] of Object.entries(replicas)) {
      const d = find(manifests, 'Deployment', `ae-agent-eval-${role}`);
      expect(d.spec.replicas, role).toBe(count);
      const [container] = d.spec.template.spec.containers;
      expect(container.args, role).toEqual(['serve', '--roles', role]);
      expect(container.env, role).toContainEqual({ name: 'AGENT_EVAL_ROLES', value: role });
      expect(container.image, role).toBe('agent-eval:0.1.0');
      expect(container.envFrom, role).toEqual([{ configMapRef: { name: 'ae-agent-eval-config' } }, { secretRef: { name: 'ae-agent-eval-secrets' } }]);
      expect(d.spec.selector.matchLabels?.['app.kubernetes.io/component'], role).toBe(role);
      expect(d.spec.template.metadata.annotations['checksum/config'], role).toMatch(/^[0-9a-f]{64}$/);
    }
    const ingester = find(manifests, 'Deployment', 'ae-agent-eval-ingester').spec.template.spec.containers[0];
    expect(ingester.resources.requests).toEqual({ cpu: '2', memory: '1Gi' });
  });

  it('probes every role on /api/health: the api on its API port, the others on HEALTH_PORT', () => {
    const container = (role: string) => find(manifests, 'Deployment', `ae-agent-eval-${role}`).spec.template.spec.containers[0];
    const probes = (c: Container) => [c.startupProbe, c.readinessProbe, c.livenessProbe].map((p) => p.httpGet);
    const api = container('api');
    expect(api.ports).toEqual([{ name: 'http', containerPort: 3000 }]);
    expect(probes(api)).toEqual(Array(3).fill({ path: '/api/health', port: 'http' }));
    const ports = { collector: ['otlp-grpc', 'otlp-http', 'health'], ingester: ['health'], worker: ['health'] };
    for (const [role, names] of Object.entries(ports)) {
      const c = container(role);
      expect(
        c.ports.map((p) => p.name),
        role,
      ).toEqual(names);
      expect(c.ports.find((p) => p.name === 'health')?.containerPort, role).toBe(8081);
      expect(probes(c), role).toEqual(Array(3).fill({ path: '/api/health', port: 'health' }));
    }
    // The process listens where the probes ask: HEALTH_PORT comes from the same value as the port.
    expect(find(manifests, 'ConfigMap', 'ae-agent-eval-config').data?.HEALTH_PORT).toBe('8081');
    const moved = render({ ...VALUES, ports: { health: 9100 } });
    expect(find(moved, 'ConfigMap', 'ae-agent-eval-config').data?.HEALTH_PORT).toBe('9100');
    expect(find(moved, 'Deployment', 'ae-agent-eval-worker').spec.template.spec.containers[0].ports).toEqual([{ name: 'health', containerPort: 9100 }]);
    // Liveness gives a dependency outage two minutes before a restart (docs/deployment.md).
    expect(api.livenessProbe).toMatchObject({ periodSeconds: 20, failureThreshold: 6 });
  });

  it('has a Service per port, each selecting its role', () => {
    const expected = [
      ['ae-agent-eval-api', 3000, 'http', 'api'],
      ['ae-agent-eval-otlp-grpc', 4317, 'otlp-grpc', 'collector'],
      ['ae-agent-eval-otlp-http', 4318, 'otlp-http', 'collector'],
    ] as const;
    for (const [name, port, target, role] of expected) {
      const s = find(manifests, 'Service', name);
      expect(s.spec.ports).toHaveLength(1);
      expect(s.spec.ports[0]).toMatchObject({ port, targetPort: target });
      expect(s.spec.selector['app.kubernetes.io/component']).toBe(role);
    }
    expect(manifests.filter((m) => m.kind === 'Service')).toHaveLength(3);
  });

  it('puts addresses in the ConfigMap and credentials in the Secret', () => {
    const data = find(manifests, 'ConfigMap', 'ae-agent-eval-config').data ?? {};
    expect(data).toMatchObject({
      KAFKA_BROKERS: 'agent-eval-kafka-bootstrap:9092',
      KAFKA_PARTITIONS: '12',
      TEMPORAL_ADDRESS: 'temporal-frontend:7233',
      TEMPORAL_NAMESPACE: 'evals',
      CLICKHOUSE_CLUSTER: 'agent_eval',
      LOG_LEVEL: 'debug',
      RETENTION_DAYS: '30',
      // Deny by default: no private or loopback destination for agents, scorers, webhooks.
      EGRESS_ALLOW: 'none',
    });
    expect(find(render({ ...VALUES, egress: { allow: '10.20.0.0/16' } }), 'ConfigMap', 'ae-agent-eval-config').data?.EGRESS_ALLOW).toBe('10.20.0.0/16');
    expect(JSON.stringify(data)).not.toContain('pass');
    const secret = find(manifests, 'Secret', 'ae-agent-eval-secrets').stringData ?? {};
    expect(secret).toEqual({
      JWT_SECRET: VALUES.secrets.jwtSecret,
      CLICKHOUSE_URL: VALUES.clickhouse.url,
      DATABASE_URL: VALUES.postgresql.url,
      METRICS_TOKEN: VALUES.secrets.metricsToken,
      ANTHROPIC_API_KEY: 'sk-ant-test',
    });
  });

  it('ships the scrape token in the Secret (refusing a short one) and scrapes every pod with it through an optional PodMonitor', () => {
    const withoutToken = render({ ...VALUES, secrets: { jwtSecret: VALUES.secrets.jwtSecret } });
    expect(Object.keys(find(withoutToken, 'Secret', 'ae-agent-eval-secrets').stringData ?? {})).not.toContain('METRICS_TOKEN');
    const short = run(['template', 'ae', CHART, '-f', valuesFile('short.yaml', { ...VALUES, secrets: { ...VALUES.secrets, metricsToken: 'too-short' } })]);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('secrets.metricsToken must be at least 32 characters');

    expect(manifests.some((m) => m.kind === 'PodMonitor')).toBe(false);
    const monitored = { ...VALUES, metrics: { podMonitor: { enabled: true, interval: '15s', labels: { release: 'prometheus' } } } };
    const monitor = find(render(monitored), 'PodMonitor', 'ae-agent-eval');
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(monitor.metadata.labels).toMatchObject({ release: 'prometheus', 'app.kubernetes.io/instance': 'ae' });
    expect(monitor.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'agent-eval', 'app.kubernetes.io/instance': 'ae' });
    // The api's port and every other role's health port, each with the token from the Secret.
    const authorization = { type: 'Bearer', credentials: { name: 'ae-agent-eval-secrets', key: 'METRICS_TOKEN' } };
    expect(monitor.spec.podMetricsEndpoints).toEqual([
      { port: 'http', path: '/metrics', interval: '15s', authorization },
      { port: 'health', path: '/metrics', interval: '15s', authorization },
    ]);
    const lint = run(['lint', CHART, '--strict', '-f', valuesFile('lint-monitor.yaml', monitored)]);
    expect(lint.stdout + lint.stderr).toContain('0 chart(s) failed');
    // A PodMonitor without a token would only collect 401s.
    const tokenless = run(['template', 'ae', CHART, '-f', valuesFile('tokenless.yaml', { ...monitored, secrets: { jwtSecret: VALUES.secrets.jwtSecret } })]);
    expect(tokenless.code).not.toBe(0);
    expect(tokenless.stderr).toContain('metrics.podMonitor.enabled needs secrets.metricsToken');
    const existing = find(render({ ...monitored, secrets: { existingSecret: 'my-secrets' } }), 'PodMonitor', 'ae-agent-eval');
    expect(existing.spec.podMetricsEndpoints?.[0].authorization).toEqual({ type: 'Bearer', credentials: { name: 'my-secrets', key: 'METRICS_TOKEN' } });
  });

  it('migrates in a pre-install and pre-upgrade hook', () => {
    const job = find(manifests, 'Job', 'ae-agent-eval-migrate');
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const [container] = job.spec.template.spec.containers;
    expect(container.args).toEqual(['migrate']);
    expect(container.env).toContainEqual({ name: 'CLICKHOUSE_CLUSTER', value: 'agent_eval' });
  });

  it('scales collectors with an HPA when asked, leaving replicas to it', () => {
    expect(manifests.some((m) => m.kind === 'HorizontalPodAutoscaler')).toBe(false);
    const scaled = render({
      ...VALUES,
      roles: { ...VALUES.roles, collector: { autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 20, targetCPUUtilizationPercentage: 60 } } },
    });
    const hpa = find(scaled, 'HorizontalPodAutoscaler', 'ae-agent-eval-collector');
    expect(hpa.spec).toMatchObject({ minReplicas: 3, maxReplicas: 20, scaleTargetRef: { kind: 'Deployment', name: 'ae-agent-eval-collector' } });
    expect(hpa.spec.metrics[0].resource.target.averageUtilization).toBe(60);
    expect(find(scaled, 'Deployment', 'ae-agent-eval-collector').spec.replicas).toBeUndefined();
  });

  it('uses an existing Secret instead of its own, and names what is missing', () => {
    const withExisting = render({ ...VALUES, secrets: { existingSecret: 'my-secrets' } });
    expect(withExisting.some((m) => m.kind === 'Secret')).toBe(false);
    const api = find(withExisting, 'Deployment', 'ae-agent-eval-api').spec.template.spec.containers[0];
    expect(api.envFrom[1]).toEqual({ secretRef: { name: 'my-secrets' } });
    const missing = run(['template', 'ae', CHART]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/is required/);
  });
});
