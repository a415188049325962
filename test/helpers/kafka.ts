import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel, type IHeaders } from 'kafkajs';
import type { SpanRecord } from '../../core/model/span.js';
import { SPAN_COLUMNS, spanRow } from '../../core/store/clickhouse/rows.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/kafka.sh', import.meta.url));

/** The broker version tests run against unless they ask for another (or KAFKA_TEST_VERSION names one). */
export const DEFAULT_KAFKA_VERSION = '3.9.1';

/** A running single-node Kafka broker (KRaft) started by scripts/kafka.sh. */
export interface KafkaBroker {
  brokers: string[];
  version: string;
  /** The broker's stdout/stderr, for debugging a failing test. */
  logFile: string;
  /** The broker JVM's pid (scripts/kafka.sh execs java), e.g. to SIGSTOP it and see a hung broker. */
  pid: number;
  stop(): Promise<void>;
}

export interface StartKafkaOptions {
  version?: string;
  /** How long the broker may take to accept an admin connection. Default 90 s (2 cores, cold JVM). */
  startTimeoutMs?: number;
}

/**
 * Fetches the broker jars (cached under $AGENT_EVAL_CACHE_DIR) and starts a broker on free ports in
 * a temp dir. Throws with the script's message when Java or Maven is missing, and with the broker's
 * log when it does not come up: tests that need Kafka fail, they never quietly pass.
 */
export async function startKafka(opts: StartKafkaOptions = {}): Promise<KafkaBroker> {
  const version = opts.version || process.env.KAFKA_TEST_VERSION || DEFAULT_KAFKA_VERSION; // '' (an empty env var) means the default too
  await runScript(['fetch', version]);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-kafka-'));
  const [port, controllerPort] = await freePorts(2);
  const logFile = path.join(dir, 'broker.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn('bash', [SCRIPT, 'start', version, '--port', String(port), '--controller-port', String(controllerPort), '--dir', dir], {
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A crashed test worker must not leave a JVM behind.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const brokers = [`127.0.0.1:${port}`];
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    await terminate(child, exited);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await waitUntilReady(brokers, exited, opts.startTimeoutMs ?? 90_000);
  } catch (err) {
    const log = tail(logFile);
    await stop();
    throw new Error(`Kafka ${version} did not start: ${(err as Error).message}\n--- broker log (tail) ---\n${log}`);
  }
  return { brokers, version, logFile, pid: child.pid!, stop };
}

/** A client of `broker` for a test's own reads, writes and admin calls: silent, with short retries. */
export function kafkaClient(broker: KafkaBroker, clientId: string, retries = 3): Kafka {
  return new Kafka({ clientId, brokers: broker.brokers, logLevel: logLevel.NOTHING, retry: { retries, initialRetryTime: 100, maxRetryTime: 1000 } });
}

/** A message as read back by a test. */
export interface TopicMessage {
  key: string;
  value: string;
  partition: number;
  offset: string;
  headers: Record<string, string>;
}

let readers = 0;

/** Reads a topic from the beginning with a throwaway consumer group until `count` messages arrived. */
export async function readTopic(kafka: Kafka, topic: string, count: number, timeoutMs = 30_000): Promise<TopicMessage[]> {
  const consumer = kafka.consumer({ groupId: `test-reader-${process.pid}-${++readers}`, maxWaitTimeInMs: 200 });
  const got: TopicMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: ({ partition, message }) => {
        got.push({
          key: message.key?.toString() ?? '',
          value: message.value?.toString() ?? '',
          partition,
          offset: message.offset,
          headers: text(message.headers),
        });
        return Promise.resolve();
      },
    });
    const deadline = Date.now() + timeoutMs;
    while (got.length < count) {
      if (Date.now() > deadline) throw new Error(`read ${got.length} of ${count} messages from ${topic} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return got;
  } finally {
    await consumer.disconnect();
  }
}

/** How many messages a topic holds (sum of its partitions' high watermarks). */
export async function topicMessageCount(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

/** A group's committed offset per partition, in partition order ('-1': nothing committed). */
export async function committedOffsets(kafka: Kafka, groupId: string, topic: string): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return t.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset);
  } finally {
    await admin.disconnect();
  }
}

function text(headers: IHeaders = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
}

function runScript(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`scripts/kafka.sh ${args.join(' ')} failed (exit ${code}): ${output.trim().slice(-4000)}`));
    });
  });
}

async function waitUntilReady(brokers: string[], exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const kafka = new Kafka({ clientId: 'test-readiness', brokers, logLevel: logLevel.NOTHING, connectionTimeout: 1000, retry: { retries: 0 } });
  let lastError = 'no attempt';
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`broker process exited with code ${exitCode}`);
    const admin = kafka.admin();
    try {
      await admin.connect();
      // Metadata answered with this broker in it: the broker side is registered with the controller.
      const cluster = await admin.describeCluster();
      if (cluster.brokers.length > 0) return;
    } catch (err) {
      lastError = (err as Error).message;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no admin connection within ${timeoutMs} ms (last error: ${lastError})`);
}

/** SIGTERM lets Kafka shut down cleanly; a broker that hangs gets SIGKILL after 20 s. */
async function terminate(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** Ports held open together, so the two are distinct, then released for the broker. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

function tail(file: string, lines = 60): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * A span as the row of format 3 (before 2026-11-27), written the way that release's CSV encoder
 * did: strings always quoted with their `"` doubled and line breaks raw; maps as ClickHouse text
 * `{'k':'v'}` (each `'` and `\` escaped by a backslash), quoted; times as `seconds.mmm`; numbers
 * bare; `\N` for null. For tests that the ingester still reads messages of that format.
 */
export function format3SpanRow(s: SpanRecord): string {
  const quoted = (t: string) => `"${t.replaceAll('"', '""')}"`;
  const literal = (t: string) => `'${t.replace(/['\\]/g, '\\$&')}'`;
  const row = spanRow(s) as unknown as Record<string, unknown>;
  return SPAN_COLUMNS.map((column) => {
    const v = row[column];
    if (v === null || v === undefined) return '\\N';
    if (column === 'start_time' || column === 'end_time') {
      const ms = v as number;
      return `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
    }
    if (typeof v === 'number') return String(v);
    if (typeof v === 'string') return quoted(v);
    return quoted(
      `{${Object.entries(v as Record<string, string>)
        .map(([k, x]) => `${literal(k)}:${literal(x)}`)
        .join(',')}}`,
    );
  }).join(',');
}
