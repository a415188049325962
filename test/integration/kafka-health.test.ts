import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeze, timed } from '../helpers/hang.js';
import { startKafka, type KafkaBroker } from '../helpers/kafka.js';
import { pollUntil } from '../helpers/processes.js';
import { startTestService, type TestService } from '../helpers/server.js';

// A real broker (scripts/kafka.sh) stopped with SIGSTOP: its sockets stay open and nothing
// answers, as with a broker stuck in a long GC pause or a network black hole.

interface Health {
  status: string;
  services: Record<string, string>;
  ingest?: { kind: string; consumerLag?: number };
}

let broker: KafkaBroker;
let svc: TestService;
let thaw: (() => void) | undefined;

beforeAll(async () => {
  broker = await startKafka();
  svc = await startTestService({ KAFKA_BROKERS: broker.brokers.join(',') });
});
afterAll(async () => {
  thaw?.();
  await svc?.stop();
  await broker?.stop();
});

async function health(): Promise<{ status: number; body: Health; ms: number }> {
  const { value, ms } = await timed(async () => {
    const res = await fetch(`${svc.apiUrl}/api/health`);
    return { status: res.status, body: (await res.json()) as Health };
  });
  return { ...value, ms };
}

async function consumerLagGauge(): Promise<{ status: number; lag: number; ms: number }> {
  const { value, ms } = await timed(async () => {
    // With the admin key: /metrics needs credentials (docs/security.md, "Metrics").
    const res = await svc.api('/metrics');
    return { status: res.status, text: await res.text() };
  });
  const line = /^agent_eval_kafka_consumer_lag (\S+)$/m.exec(value.text);
  expect(line, value.text.slice(0, 2000)).not.toBeNull();
  return { status: value.status, lag: Number(line![1]), ms };
}

describe('a hung Kafka broker', () => {
  it('health answers within a second naming streaming_buffer unavailable, /metrics reports lag -1; both recover with the broker', async () => {
    await pollUntil('Kafka to show as ok', async () => ((await health()).body.services.streaming_buffer === 'ok' ? true : undefined), { timeoutMs: 30_000 });
    const before = await health();
    expect(before.body.ingest).toMatchObject({ kind: 'kafka', consumerLag: expect.any(Number) as number });
    expect((await consumerLagGauge()).lag).toBeGreaterThanOrEqual(0);

    thaw = freeze(broker.pid);
    try {
      for (let i = 0; i < 2; i++) {
        const { status, body, ms } = await health();
        expect(status).toBe(200);
        // The stores answer, but this process's collector writes to Kafka: degraded (200), Kafka named as the one down.
        expect(body).toMatchObject({ status: 'degraded', services: { analytical_store: 'ok', metadata_store: 'ok', streaming_buffer: 'unavailable' } });
        expect(body.ingest).toMatchObject({ kind: 'kafka' });
        expect(body.ingest).not.toHaveProperty('consumerLag');
        expect(ms).toBeLessThan(1000);
      }
      const scrape = await consumerLagGauge();
      expect(scrape.status).toBe(200);
      expect(scrape.lag).toBe(-1);
      expect(scrape.ms).toBeLessThan(1000);
    } finally {
      thaw();
    }

    await pollUntil('Kafka to show as ok again after SIGCONT', async () => ((await health()).body.services.streaming_buffer === 'ok' ? true : undefined), {
      timeoutMs: 60_000,
    });
    expect((await consumerLagGauge()).lag).toBeGreaterThanOrEqual(0);
  });
});
