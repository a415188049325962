import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentEvalClient, ServiceApiError } from '../../sdk/index.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * The typed client's groups for issue 12's endpoints against the real service: HTTP custom
 * scorers, online evaluation rules, judge calibration, and the price table.
 */
let service: TestApi;
let client: AgentEvalClient;
let scorerServer: http.Server;
let scorerUrl: string;

beforeAll(async () => {
  service = await startTestApi();
  client = new AgentEvalClient({ url: service.apiUrl, apiKey: service.apiKey });
  scorerServer = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"value":1}'));
  await new Promise<void>((resolve) => scorerServer.listen(0, '127.0.0.1', resolve));
  scorerUrl = `http://127.0.0.1:${(scorerServer.address() as AddressInfo).port}/score`;
});

afterAll(async () => {
  await new Promise((resolve) => scorerServer?.close(resolve));
  await service?.stop();
});

describe('AgentEvalClient, issue 12 endpoints', () => {
  it('registers, reads, lists and deletes an HTTP custom scorer', async () => {
    const created = await client.scorers.create({ name: 'politeness', endpoint: scorerUrl, dataType: 'boolean', headers: { authorization: 'Bearer s3cret' } });
    expect(created).toMatchObject({ name: 'politeness', endpoint: scorerUrl, data_type: 'boolean', header_names: ['authorization'] });
    expect(JSON.stringify(created)).not.toContain('s3cret');
    expect((await client.scorers.get('politeness')).id).toBe(created.id);
    expect((await client.scorers.list()).scorers.map((s) => s.name)).toContain('politeness');
    await client.scorers.delete(created.id);
    const err = await client.scorers.get('politeness').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceApiError);
    expect((err as ServiceApiError).message).toBe('Service API error: 404 Scorer not found');
  });

  it('creates, pauses, reads and deletes an online rule', async () => {
    const rule = await client.onlineRules.create({ name: 'short answers', sample_rate: 0.5, scorers: ['exactMatch'], delay_seconds: 5 });
    expect(rule).toMatchObject({ name: 'short answers', sample_rate: 0.5, enabled: true });
    const paused = await client.onlineRules.update(rule.id, { enabled: false });
    expect(paused.enabled).toBe(false);
    const read = await client.onlineRules.get(rule.id);
    expect(read.stats.scored).toBe(0);
    expect((await client.onlineRules.list()).rules.map((r) => r.id)).toContain(rule.id);
    expect((await client.onlineRules.evaluations(rule.id)).evaluations).toEqual([]);
    await client.onlineRules.delete(rule.id);
    await expect(client.onlineRules.get(rule.id)).rejects.toMatchObject({ status: 404 });
  });

  it('lists judge calibrations and reads the price table', async () => {
    expect((await client.judges.calibrations()).calibrations).toEqual([]);
    const prices = await client.costs.prices();
    expect(prices.currency).toBe('USD');
    expect(prices.models.length).toBeGreaterThan(10);
  });
});
