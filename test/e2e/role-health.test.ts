import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeze, timed } from '../helpers/hang.js';
import { startKafka, type KafkaBroker } from '../helpers/kafka.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { pollUntil, removeDir, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';

// Processes without the api role serve the API's own /api/health and /metrics on HEALTH_PORT
// (docs/deployment.md, "Health per role"): a collector producing to a real Kafka broker
// (scripts/kafka.sh), and a worker with its embedded Temporal dev server. Real processes, real
// chDB and embedded PostgreSQL each; nothing mocked.

interface Health {
  status: string;
  version: string;
  auth: string;
  services: Record<string, string>;
  ingest?: { kind: string; pendingSpans: number; pendingBytes: number; consumerLag?: number };
}

let broker: KafkaBroker | undefined;
let thaw: (() => void) | undefined;
let collector: ServiceProcess | undefined;
let worker: ServiceProcess | undefined;
const dirs = { collector: makeDataDir('agent-eval-health-c-'), worker: makeDataDir('agent-eval-health-w-') };

beforeAll(async () => {
  // The worker needs no broker: it starts while the broker does.
  const started = await Promise.allSettled([
    spawnServiceProcess(dirs.worker, { AGENT_EVAL_ROLES: 'worker' }),
    (async () => {
      broker = await startKafka();
      return spawnServiceProcess(dirs.collector, {
        AGENT_EVAL_ROLES: 'collector',
        KAFKA_BROKERS: broker.brokers.join(','),
        KAFKA_TOPIC: 'health.spans',
        KAFKA_DLQ_TOPIC: 'health.spans.dlq',
      });
    })(),
  ]);
  [worker, collector] = started.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
});

afterAll(async () => {
  thaw?.();
  await Promise.all([stopProcess(collector), stopProcess(worker)]);
  await broker?.stop();
  for (const dir of Object.values(dirs)) removeDir(dir);
});

async function health(p: ServiceProcess | undefined): Promise<{ status: number; body: Health; ms: number }> {
  const { value, ms } = await timed(async () => {
    const res = await fetch(`${p!.healthUrl!}/api/health`);
    return { status: res.status, body: (await res.json()) as Health };
  });
  return { ...value, ms };
}

/** Process `p`'s health: 200, healthy, without authentication, with these services and this ingest. */
async function expectHealthy(p: ServiceProcess | undefined, services: Health['services'], ingest: Health['ingest']): Promise<void> {
  const { status, body } = await health(p);
  expect(status).toBe(200);
  expect(body).toEqual({ status: 'healthy', version: expect.any(String) as string, auth: 'none', services, ingest });
}

async function metrics(p: ServiceProcess | undefined): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${p!.healthUrl!}/metrics`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The value of an unlabelled sample, e.g. `agent_eval_kafka_consumer_lag -1`. */
function sample(text: string, name: string): number {
  const line = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  expect(line, `${name} in:\n${text.slice(0, 2000)}`).not.toBeNull();
  return Number(line![1]);
}

const METRICS_OF_EVERY_PROCESS = [
  'agent_eval_process_cpu_seconds_total',
  'agent_eval_nodejs_eventloop_lag_seconds',
  'agent_eval_ingest_pending_spans',
  'agent_eval_ingest_pending_bytes',
  'agent_eval_kafka_consumer_lag',
  'agent_eval_online_eval_lag_seconds',
  'agent_eval_online_eval_pending',
  'agent_eval_online_eval_stats_up',
];

describe('a collector (Kafka write path) without the api role', () => {
  it('serves /api/health on HEALTH_PORT with Kafka as streaming_buffer, and no API', async () => {
    expect(collector!.apiUrl).toBeUndefined();
    expect(collector!.healthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expectHealthy(
      collector,
      { analytical_store: 'ok', metadata_store: 'ok', workflow_engine: 'not_configured', streaming_buffer: 'ok', data_dir: 'ok' },
      { kind: 'kafka', pendingSpans: 0, pendingBytes: 0 },
    );
    // The health port serves health and metrics only: the API's routes are not there.
    const api = await fetch(`${collector!.healthUrl!}/api/traces`);
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
  });

  it('serves /metrics in the Prometheus text format, its consumer lag unknown (-1: it runs no ingester)', async () => {
    const { status, type, text } = await metrics(collector);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of METRICS_OF_EVERY_PROCESS) expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    expect(sample(text, 'agent_eval_ingest_pending_spans')).toBe(0);
    expect(sample(text, 'agent_eval_kafka_consumer_lag')).toBe(-1);
    expect(sample(text, 'agent_eval_online_eval_stats_up')).toBe(1);
  });

  it('reports Kafka unavailable within a second when the broker hangs and when it dies, and ok again in between', async () => {
    thaw = freeze(broker!.pid);
    try {
      for (let i = 0; i < 2; i++) {
        const { status, body, ms } = await health(collector);
        // PostgreSQL answers, Kafka does not: the collector can authenticate but not store spans.
        expect({ status, body: body.status, services: body.services }).toEqual({
          status: 200,
          body: 'degraded',
          services: { analytical_store: 'ok', metadata_store: 'ok', workflow_engine: 'not_configured', streaming_buffer: 'unavailable', data_dir: 'ok' },
        });
        expect(ms).toBeLessThan(1000);
      }
    } finally {
      thaw();
    }
    await pollUntil(
      'Kafka to show as ok again after SIGCONT',
      async () => ((await health(collector)).body.services.streaming_buffer === 'ok' ? true : undefined),
      {
        timeoutMs: 30_000,
      },
    );

    const killed = performance.now();
    process.kill(broker!.pid, 'SIGKILL');
    const took: number[] = [];
    const down = await pollUntil(
      'Kafka to show as unavailable after SIGKILL',
      async () => {
        const answer = await health(collector);
        took.push(answer.ms);
        return answer.body.services.streaming_buffer === 'unavailable' ? answer : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(performance.now() - killed).toBeLessThan(1500);
    expect(Math.max(...took)).toBeLessThan(1000);
    expect(down.status).toBe(200);
    expect(down.body.status).toBe('degraded');
    // A scrape still answers with the broker gone.
    expect((await metrics(collector)).status).toBe(200);
  });
});

describe('a worker without the api role', () => {
  it('serves /api/health on HEALTH_PORT with its workflow engine and both stores', async () => {
    expect(worker!.apiUrl).toBeUndefined();
    expect(worker!.otlpHttpUrl).toBeUndefined();
    await expectHealthy(
      worker,
      { analytical_store: 'ok', metadata_store: 'ok', workflow_engine: 'ok', data_dir: 'ok' },
      { kind: 'batcher', pendingSpans: 0, pendingBytes: 0 },
    );
  });

  it('serves /metrics with the online evaluation and write path series', async () => {
    const { status, type, text } = await metrics(worker);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of METRICS_OF_EVERY_PROCESS) expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    expect(sample(text, 'agent_eval_kafka_consumer_lag')).toBe(-1);
    expect(sample(text, 'agent_eval_online_eval_stats_up')).toBe(1);
  });
});
