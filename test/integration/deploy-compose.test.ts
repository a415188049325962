import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * deploy/compose/docker-compose.yml, validated and resolved by `docker-compose config` (Debian's
 * docker-compose parses without a container engine; scripts/docker-compose.sh installs it).
 */
const SCRIPT = fileURLToPath(new URL('../../scripts/docker-compose.sh', import.meta.url));
const FILE = fileURLToPath(new URL('../../deploy/compose/docker-compose.yml', import.meta.url));
const JWT_SECRET = 'a-test-secret-of-at-least-32-characters';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: Array<{ published: number | string; target: number }>;
  volumes?: string[];
}

let compose = '';
const ROLE_SERVICES = { 'collector-1': 'collector', 'collector-2': 'collector', ingester: 'ingester', api: 'api', worker: 'worker' } as const;

function config(env: Record<string, string>): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(compose, ['-f', FILE, 'config'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    return { code: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the Docker Compose deployment', () => {
  let services: Record<string, Service>;
  let volumes: Record<string, unknown>;

  beforeAll(() => {
    compose = execFileSync('bash', [SCRIPT, 'fetch'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    const result = config({ JWT_SECRET });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const parsed = parse(result.stdout) as { services: Record<string, Service>; volumes: Record<string, unknown> };
    services = parsed.services;
    volumes = parsed.volumes;
  });

  it('runs the stores, the broker and the workflow engine from pinned official images', () => {
    expect(services.clickhouse.image).toMatch(/^clickhouse\/clickhouse-server:\d+\.\d+/);
    expect(services.postgres.image).toMatch(/^postgres:\d+\.\d+$/);
    expect(services.kafka.image).toMatch(/^apache\/kafka:\d+\.\d+\.\d+$/);
    expect(services.kafka.environment?.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(services.temporal.image).toMatch(/^temporalio\/auto-setup:\d+\.\d+\.\d+$/);
    expect(services.temporal.depends_on?.['temporal-db']).toEqual({ condition: 'service_healthy' });
    for (const name of ['clickhouse', 'postgres', 'kafka', 'temporal', 'temporal-db']) {
      expect(services[name].healthcheck?.test.length, name).toBeGreaterThan(0);
      expect(services[name].image, name).not.toMatch(/:latest$/);
    }
    expect(Object.keys(volumes)).toEqual(expect.arrayContaining(['clickhouse-data', 'postgres-data', 'kafka-data', 'temporal-db-data']));
  });

  it('runs agent-eval once per role from the one image, each with the environment of its role', () => {
    for (const [name, role] of Object.entries(ROLE_SERVICES)) {
      const s = services[name];
      expect(s.image, name).toBe('agent-eval:0.1.0');
      expect(s.build?.dockerfile, name).toBe('deploy/Dockerfile');
      expect(s.command, name).toEqual(['serve', '--roles', role]);
      const env = s.environment ?? {};
      expect(env.AGENT_EVAL_ROLES, name).toBe(role);
      expect(env.CLICKHOUSE_URL, name).toBe('http://agent_eval:agent-eval@clickhouse:8123');
      expect(env.DATABASE_URL, name).toBe('postgres://agent_eval:agent-eval@postgres:5432/agent_eval');
      expect(env.KAFKA_BROKERS, name).toBe('kafka:9092');
      expect(env.TEMPORAL_ADDRESS, name).toBe('temporal:7233');
      expect(env.JWT_SECRET, name).toBe(JWT_SECRET);
      // Deny by default: no private or loopback destination for agents, scorers, webhooks.
      expect(env.EGRESS_ALLOW, name).toBe('none');
      // No scrape token unless one is given (then only a projects:admin key scrapes /metrics).
      expect(env.METRICS_TOKEN, name).toBe('');
    }
    expect(services.worker.volumes?.some((v) => v.startsWith('worker-cache:/var/cache/agent-eval'))).toBe(true);
  });

  it('starts roles only once the stores are healthy and the migrations are applied', () => {
    for (const name of Object.keys(ROLE_SERVICES)) {
      const deps = services[name].depends_on ?? {};
      expect(deps.clickhouse, name).toEqual({ condition: 'service_healthy' });
      expect(deps.postgres, name).toEqual({ condition: 'service_healthy' });
      expect(deps.kafka, name).toEqual({ condition: 'service_healthy' });
      expect(deps.migrate, name).toEqual({ condition: 'service_completed_successfully' });
    }
    expect(services.api.depends_on?.temporal).toEqual({ condition: 'service_healthy' });
    expect(services.worker.depends_on?.temporal).toEqual({ condition: 'service_healthy' });
    expect(services.migrate.command).toEqual(['migrate']);
  });

  it('publishes the API and both collectors', () => {
    expect(services.api.ports).toEqual([expect.objectContaining({ published: 3000, target: 3000 })]);
    const targets = (name: string) => (services[name].ports ?? []).map((p) => p.target).sort();
    expect(targets('collector-1')).toEqual([4317, 4318]);
    expect(targets('collector-2')).toEqual([4317, 4318]);
  });

  it('checks the health of every role on /api/health: the api on its port, the others on HEALTH_PORT', () => {
    expect(services.api.healthcheck?.test.join(' ')).toContain("fetch('http://127.0.0.1:3000/api/health')");
    for (const name of ['collector-1', 'collector-2', 'ingester', 'worker']) {
      expect(services[name].environment?.HEALTH_PORT, name).toBe('8081');
      const test = services[name].healthcheck?.test ?? [];
      // Exec form with the image's node (no shell, no curl in node:20-bookworm-slim): 200 passes, 503 fails.
      expect(test.slice(0, 3), name).toEqual(['CMD', 'node', '-e']);
      expect(test[3], name).toContain("fetch('http://127.0.0.1:8081/api/health')");
      expect(test[3], name).toContain('r.ok ? 0 : 1');
    }
  });

  it("passes METRICS_TOKEN, Prometheus's bearer token for /metrics, to every role", () => {
    const token = 'a-metrics-token-of-at-least-32-characters';
    const result = config({ JWT_SECRET, METRICS_TOKEN: token });
    expect(result.code).toBe(0);
    const resolved = (parse(result.stdout) as { services: Record<string, Service> }).services;
    for (const name of Object.keys(ROLE_SERVICES)) expect(resolved[name].environment?.METRICS_TOKEN, name).toBe(token);
  });

  it('refuses to start without a JWT secret', () => {
    const result = config({});
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('JWT_SECRET');
  });
});
