import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnlineRule, OnlineSessionEvaluationList } from '../../core/model/online-rule.js';
import type { Score } from '../../core/model/score.js';
import type { SessionDetail, SessionList } from '../../core/model/trace-session.js';
import { AgentEvalClient } from '../../sdk/index.js';
import { createPool, type MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { loadCorpus } from '../helpers/corpus.js';
import { eventually } from '../helpers/eventually.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { extraOnlineEvaluators } from '../helpers/online-evaluators.js';
import { servicePostgresUrl } from '../helpers/service-postgres.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { onlineRulesApi } from '../helpers/online-rules-api.js';
import { expectJson } from '../helpers/test-service-hooks.js';

/**
 * Online session rules (docs/online-evals.md, "Session rules") against the real service (chDB,
 * embedded PostgreSQL, its worker's evaluator ticking every 100 ms): conversations made of the
 * corpus's SPEC trace (every span kind, tool calls, the real texts), each turn a trace whose body
 * names the session (`session.id`). A rule scores a session once it has been idle, once per idle
 * period, with several evaluators racing; its scores show in GET /api/sessions.
 */

let svc: TestService;
let extraMetadata: MetadataStore | undefined;

beforeAll(async () => {
  svc = await startTestService({ ONLINE_EVAL_TICK_MS: '100', ONLINE_EVAL_LEASE_MS: '10000' });
});

afterAll(async () => {
  await extraMetadata?.close();
  await svc?.stop();
});

const SPEC = loadCorpus().json.find((t) => t.name === 'spec')!.body;
const USER_TEXTS = loadCorpus()
  .json.flatMap((t) => t.body.spans)
  .map((s) => s.input)
  .filter((v): v is string => typeof v === 'string' && v.length > 0 && v.length < 2000);

/**
 * One turn of a conversation: the corpus's SPEC trace (without its 600 KB generation, to keep the
 * test quick) under a new trace id, starting now, with the user's message as the root's input and
 * the session named in the body's trace attributes.
 */
function turn(sessionId: string, n: number, answer = 'Your trip is booked: LIS to TYO, ok.') {
  const shift = Date.now() - 10_000 - Date.parse(SPEC.start_time);
  const moved = (iso: string) => new Date(Date.parse(iso) + shift).toISOString();
  return {
    ...SPEC,
    trace_id: `${sessionId}-turn-${n}`,
    start_time: moved(SPEC.start_time),
    attributes: { ...SPEC.attributes, 'session.id': sessionId },
    spans: SPEC.spans
      .filter((s) => s.span_id !== 'spec-final')
      .map((s) => ({
        ...s,
        start_time: moved(s.start_time),
        end_time: moved(s.end_time),
        // The root span names the session too, as OpenTelemetry instrumentations do.
        ...(s.span_id === 'spec-agent'
          ? { input: USER_TEXTS[n % USER_TEXTS.length], output: answer, attributes: { ...s.attributes, 'session.id': sessionId } }
          : {}),
      })),
  };
}

function client(project: string) {
  return {
    ...onlineRulesApi(svc, project),
    evaluations: async (id: string) =>
      expectJson<OnlineSessionEvaluationList>(await svc.api(`/api/evals/online-rules/${id}/evaluations?limit=1000`, { project }), 200),
    session: async (id: string) => expectJson<SessionDetail>(await svc.api(`/api/sessions/${encodeURIComponent(id)}`, { project }), 200),
    sessions: async (query = '') => expectJson<SessionList>(await svc.api(`/api/sessions${query}`, { project }), 200),
    scores: async (traceId: string) => (await expectJson<{ scores: Score[] }>(await svc.api(`/api/scores?trace_id=${traceId}`, { project }), 200)).scores,
  };
}

async function newProject(): Promise<ReturnType<typeof client>> {
  const project = `sessions-${randomUUID().slice(0, 8)}`;
  await svc.keyFor(project);
  return client(project);
}

/** Every stored score row of a rule, per (session, generation): rows and distinct ids. */
async function storedScores(project: string, ruleId: string): Promise<Map<string, { rows: number; ids: number }>> {
  const rs = await svc.clickhouse.query({
    query: `SELECT session_id, attributes['agent_eval.session_generation'] AS generation, count() AS rows, uniqExact(score_id) AS ids FROM agent_eval.scores
            WHERE project_id = {project:String} AND attributes['agent_eval.online_rule_id'] = {rule:String} GROUP BY session_id, generation`,
    query_params: { project, rule: ruleId },
    format: 'JSONEachRow',
  });
  const rows = await rs.json<{ session_id: string; generation: string; rows: string; ids: string }>();
  return new Map(rows.map((r) => [`${r.session_id}#${r.generation}`, { rows: Number(r.rows), ids: Number(r.ids) }]));
}

const since = () => new Date(Date.now() - 3600_000).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The idle time of the tests' rules; a session is due after it plus the store's 5 s allowance for writes in flight. */
const IDLE = 1;
const SCORERS = ['contains', { name: 'latency', config: {} }];
/** A conversation-level scorer: the share of turns whose per-turn `contains` passed (turns[].scores). */
const TURN_SHARE = { name: 'turnScores', config: { scorers: ['contains'], turnMinScore: 1 } };
const EXPECTED = { outputContains: ['ok'], maxLatencyMs: 60_000 };

describe('a session rule', () => {
  it('scores a session once it has been idle (not before), once; the scores show in the session view and list', async () => {
    const c = await newProject();
    const rule = await c.create({
      name: 'conversation quality',
      target: 'session',
      idle_seconds: IDLE,
      scorers: [...SCORERS, TURN_SHARE],
      expected: EXPECTED,
      since: since(),
    });
    expect(rule).toMatchObject({ target: 'session', idle_seconds: IDLE, on_resume: 'reevaluate' });
    expect(rule).not.toHaveProperty('delay_seconds');
    const session = `conv-${randomUUID().slice(0, 8)}`;
    // Three turns; the third answer misses "ok", so contains averages 2/3 over the turns.
    await c.ingest(turn(session, 1));
    await c.ingest(turn(session, 2));
    const started = Date.now();
    await c.ingest(turn(session, 3, 'Sorry, that failed.'));
    // Still being written to (within idle time + the store's settle time): nothing yet.
    await sleep(2000);
    expect((await c.evaluations(rule.id)).total).toBe(0);

    const evaluations = await eventually(async () => {
      const list = await c.evaluations(rule.id);
      expect(list.evaluations.map((e) => [e.session_id, e.generation, e.status])).toEqual([[session, 1, 'done']]);
      return list;
    }, 60_000);
    // Not before the session had been quiet for idle_seconds (and the 5 s settle time).
    expect(Date.parse(evaluations.evaluations[0].created_at) - started).toBeGreaterThanOrEqual(IDLE * 1000 + 5000 - 1000);
    const [e] = evaluations.evaluations;
    expect(e).toMatchObject({ attempts: 1, turns: 3, last_trace_id: `${session}-turn-3`, error: null });
    expect(e.scores?.contains.value).toBeCloseTo(2 / 3, 9);
    expect(e.scores?.contains.reason).toContain('lowest turn 3');
    expect(e.scores?.latency.value).toBe(1);
    // The conversation-level scorer saw the turns' own verdicts: 2 of 3 turns passed.
    expect(e.scores?.turnScores.value).toBeCloseTo(2 / 3, 9);
    expect(e.scores?.turnScores.reason).toContain('2 of 3 scored turns reached 1');

    const view = await c.session(session);
    expect(view.session_scores.map((s) => [s.name, s.rule_id, s.rule, s.generation, s.turns, s.trace_id])).toEqual([
      ['contains', rule.id, 'conversation quality', 1, 3, `${session}-turn-3`],
      ['latency', rule.id, 'conversation quality', 1, 3, `${session}-turn-3`],
      ['turnScores', rule.id, 'conversation quality', 1, 3, `${session}-turn-3`],
    ]);
    expect(view.session_scores[0].value).toBeCloseTo(2 / 3, 9);
    expect(view.session_scores[0].reason).toContain('mean over 3 turns');
    // Session scores are not a turn's: the per-turn means stay those of the traces' own scores (none here).
    expect(view.scores).toEqual([]);
    const listed = (await c.sessions()).sessions.find((s) => s.session_id === session)!;
    expect(listed.session_scores).toEqual(view.session_scores);
    // The score filter sees a session's own scores.
    expect((await c.sessions('?score_name=contains&score_below=0.7')).sessions.map((s) => s.session_id)).toEqual([session]);
    expect((await c.sessions('?score_name=contains&score_below=0.5')).total).toBe(0);
    // The score is also listed under the last turn's trace, naming its session.
    const [onTrace] = (await c.scores(`${session}-turn-3`)).filter((s) => s.name === 'contains');
    expect(onTrace).toMatchObject({
      session_id: session,
      source: 'eval',
      attributes: { 'agent_eval.online_rule_id': rule.id, 'agent_eval.session_generation': '1' },
    });

    // Quiet, it is never scored again.
    await sleep(1500);
    expect((await c.rule(rule.id)).stats).toMatchObject({ scored: 1, pending: 0, errors: 0 });
    expect(await storedScores(c.project, rule.id)).toEqual(new Map([[`${session}#1`, { rows: 3, ids: 3 }]]));
    // The SDK's typed client reads the same generations.
    const sdk = new AgentEvalClient({ url: svc.apiUrl, apiKey: await svc.keyFor(c.project) });
    expect((await sdk.onlineRules.sessionEvaluations(rule.id, { session_id: session })).evaluations.map((g) => g.generation)).toEqual([1]);
  });

  it('scores a resumed session again after its next idle period (reevaluate), and never again with ignore', async () => {
    const c = await newProject();
    const again = await c.create({ name: 'again', target: 'session', idle_seconds: IDLE, scorers: ['contains'], expected: EXPECTED, since: since() });
    const once = await c.create({
      name: 'once',
      target: 'session',
      idle_seconds: IDLE,
      on_resume: 'ignore',
      scorers: ['contains'],
      expected: EXPECTED,
      since: since(),
    });
    const session = `resumed-${randomUUID().slice(0, 8)}`;
    await c.ingest(turn(session, 1));
    await c.ingest(turn(session, 2));
    for (const rule of [again, once]) await eventually(async () => expect((await c.rule(rule.id)).stats).toMatchObject({ scored: 1, pending: 0 }), 60_000);

    // The user comes back: a third turn, after both rules scored the session.
    await c.ingest(turn(session, 3, 'Rebooked: ok.'));
    const list = await eventually(async () => {
      const l = await c.evaluations(again.id);
      expect(l.evaluations.map((e) => [e.generation, e.status, e.turns])).toEqual([
        [2, 'done', 3],
        [1, 'done', 2],
      ]);
      return l;
    }, 60_000);
    expect(list.evaluations[0].last_trace_id).toBe(`${session}-turn-3`);
    // The session view shows the latest generation's scores.
    const view = await c.session(session);
    const mine = view.session_scores.filter((s) => s.rule_id === again.id);
    expect(mine.map((s) => [s.generation, s.turns])).toEqual([[2, 3]]);
    // 'ignore' keeps its one evaluation, however long the session stays quiet after.
    await sleep(IDLE * 1000 + 5000 + 1000);
    expect((await c.evaluations(once.id)).evaluations.map((e) => e.generation)).toEqual([1]);
    expect((await c.rule(once.id)).stats.scored).toBe(1);
    expect((await c.rule(again.id)).stats.scored).toBe(2);
    expect(await storedScores(c.project, again.id)).toEqual(
      new Map([
        [`${session}#1`, { rows: 1, ids: 1 }],
        [`${session}#2`, { rows: 1, ids: 1 }],
      ]),
    );
    // Erasing the session (GDPR) takes its evaluations and its session scores with its traces.
    const erase = await expectJson<{ id: string }>(await svc.api('/api/deletions', { method: 'POST', project: c.project, json: { session_id: session } }), 202);
    await eventually(async () => {
      const d = await expectJson<{ status: string; rows_deleted: { metadata?: Record<string, number> } }>(
        await svc.api(`/api/deletions/${erase.id}`, { project: c.project }),
        200,
      );
      expect(d.status).toBe('completed');
      expect(d.rows_deleted.metadata?.online_session_evaluations).toBe(3);
    }, 30_000);
    expect((await c.evaluations(again.id)).total).toBe(0);
    expect((await c.evaluations(once.id)).total).toBe(0);
    expect(await storedScores(c.project, again.id)).toEqual(new Map());
  });

  it('takes the sessions one of whose turns matches its filter, and never evaluation runs', async () => {
    const c = await newProject();
    const rule = await c.create({
      name: 'enterprise refunds',
      target: 'session',
      idle_seconds: IDLE,
      filter: { trace_name: 'refund', attributes: { plan: 'enterprise' }, component_type: 'retrieval', status: 'error' },
      scorers: ['contains'],
      expected: EXPECTED,
      since: since(),
    });
    const refund = (s: string, n: number, plan: string) => {
      const t = turn(s, n);
      return { ...t, name: n === 2 ? 'refund request' : t.name, attributes: { ...t.attributes, plan } };
    };
    const taken = `taken-${randomUUID().slice(0, 8)}`;
    const otherPlan = `free-${randomUUID().slice(0, 8)}`;
    // Turn 2 alone matches (the name); the session as a whole is taken.
    await c.ingest(refund(taken, 1, 'enterprise'));
    await c.ingest(refund(taken, 2, 'enterprise'));
    // The name on one turn, the plan on another: no turn matches both.
    await c.ingest(refund(otherPlan, 1, 'enterprise'));
    await c.ingest(refund(otherPlan, 2, 'free'));
    // An evaluation run's case trace names a session too: test traffic, never a rule's.
    const run = turn(`run-${randomUUID().slice(0, 8)}`, 2);
    await c.ingest({ ...run, name: 'refund request', attributes: { ...run.attributes, plan: 'enterprise', 'agent_eval.run_id': 'r1' } });
    await eventually(async () => expect((await c.rule(rule.id)).stats).toMatchObject({ scored: 1, pending: 0 }), 60_000);
    await sleep(1000);
    expect((await c.evaluations(rule.id)).evaluations.map((e) => [e.session_id, e.turns])).toEqual([[taken, 2]]);
  });
});

describe('a worker that dies mid-evaluation', () => {
  it('leaves a lease that runs out: the generation is then taken again and scored once', async () => {
    const c = await newProject();
    const rule = await c.create({ name: 'dead worker', target: 'session', idle_seconds: IDLE, scorers: ['contains'], expected: EXPECTED, since: since() });
    const session = `orphan-${randomUUID().slice(0, 8)}`;
    await c.ingest(turn(session, 1));
    await c.ingest(turn(session, 2));
    // A worker claimed generation 1 (idle since far ahead: the scan adds no other) and died: its lease runs 2 s more.
    const pool = createPool(servicePostgresUrl(svc.dataDir));
    try {
      await pool.query(
        `INSERT INTO online_session_evaluations (rule_id, session_id, generation, project_id, session_stored_ms, session_end_ms, status, attempts, lease, next_attempt_at)
         VALUES ($1, $2, 1, $3, $4, $4, 'running', 1, $5, now() + interval '2 seconds')`,
        [rule.id, session, c.project, Date.now() + 86_400_000, randomUUID()],
      );
    } finally {
      await pool.end();
    }
    await sleep(1000);
    expect((await c.evaluations(rule.id)).evaluations.map((e) => [e.status, e.attempts])).toEqual([['running', 1]]);
    const [done] = await eventually(async () => {
      const list = await c.evaluations(rule.id);
      expect(list.evaluations.map((e) => [e.generation, e.status, e.attempts])).toEqual([[1, 'done', 2]]);
      return list.evaluations;
    }, 30_000);
    expect(done.turns).toBe(2);
    expect(await storedScores(c.project, rule.id)).toEqual(new Map([[`${session}#1`, { rows: 1, ids: 1 }]]));
    expect((await c.rule(rule.id)).stats).toMatchObject({ scored: 1, pending: 0, errors: 0 });
  });
});

describe('two more evaluators on the same stores', () => {
  it('still score each session generation once', async () => {
    const c = await newProject();
    extraMetadata = openServiceMetadata(svc.dataDir);
    const evaluators = extraOnlineEvaluators(svc, extraMetadata, 2, 7);
    const sessions = Array.from({ length: 20 }, (_, i) => `race-${i}-${c.project}`);
    for (const s of sessions) await Promise.all([1, 2, 3].map((n) => c.ingest(turn(s, n))));
    const rule = await c.create({ name: 'raced', target: 'session', idle_seconds: IDLE, scorers: SCORERS, expected: EXPECTED, since: since() });
    let stop = false;
    const racing = evaluators.map(async (e) => {
      while (!stop) {
        await e.tick();
        await sleep(20);
      }
    });
    try {
      await eventually(async () => expect((await c.rule(rule.id)).stats).toMatchObject({ scored: sessions.length, pending: 0 }), 90_000);
    } finally {
      stop = true;
      await Promise.all(racing);
      await Promise.all(evaluators.map((e) => e.close()));
    }
    const stored = await storedScores(c.project, rule.id);
    expect([...stored.keys()].sort()).toEqual(sessions.map((s) => `${s}#1`).sort());
    for (const [key, s] of stored) expect(s, key).toEqual({ rows: 2, ids: 2 });
    const list = await c.evaluations(rule.id);
    expect(list.total).toBe(sessions.length);
    expect(list.evaluations.filter((e) => e.attempts !== 1 || e.turns !== 3)).toEqual([]);
  });
});

describe('session rules in the API', () => {
  it('refuses settings of the other target, a bad idle time, a changed target, and conversation scorers on trace rules, naming each', async () => {
    const c = await newProject();
    const refused = async (body: Record<string, unknown>, status = 422) =>
      expectJson<{ details: Array<{ field: string; message: string }> }>(
        await svc.api('/api/evals/online-rules', { method: 'POST', project: c.project, json: body }),
        status,
      );
    const base = { name: 'r', scorers: ['contains'] };
    expect((await refused({ ...base, target: 'session', delay_seconds: 5 })).details).toEqual([
      { field: 'delay_seconds', message: 'applies to trace rules only; a session rule waits idle_seconds' },
    ]);
    expect((await refused({ ...base, idle_seconds: 60, on_resume: 'ignore' })).details.map((d) => [d.field, d.message])).toEqual([
      ['idle_seconds', 'applies to session rules (target "session") only'],
      ['on_resume', 'applies to session rules (target "session") only'],
    ]);
    expect((await refused({ ...base, target: 'session', idle_seconds: 0 })).details).toEqual([{ field: 'idle_seconds', message: 'must be at least 1 second' }]);
    expect((await refused({ ...base, target: 'session', idle_seconds: 8 * 86_400 })).details[0].message).toContain('at most 604800 seconds');
    expect((await refused({ ...base, target: 'session', on_resume: 'sometimes' })).details[0]).toMatchObject({ field: 'on_resume' });
    expect((await refused({ ...base, target: 'conversation' })).details[0]).toMatchObject({ field: 'target', message: 'must be one of: trace, session' });

    expect((await refused({ ...base, scorers: ['contains', 'turnScores'] })).details).toEqual([
      {
        field: 'scorers[1]',
        message: `'turnScores' scores a whole conversation: use it in a session rule (target "session"), which scores each session once it is idle`,
      },
    ]);
    const session = await c.create({ ...base, target: 'session' });
    expect(session).toMatchObject({ target: 'session', idle_seconds: 1800, on_resume: 'reevaluate' });
    const change = await svc.api(`/api/evals/online-rules/${session.id}`, { method: 'PATCH', project: c.project, json: { target: 'trace' } });
    expect((await expectJson<{ details: unknown }>(change, 422)).details).toEqual([
      { field: 'target', message: "cannot change: this is a session rule (a rule's target is fixed when it is created; create a new rule)" },
    ]);
    // What GET returned can be sent back edited.
    const edited = await expectJson<OnlineRule>(
      await svc.api(`/api/evals/online-rules/${session.id}`, {
        method: 'PUT',
        project: c.project,
        json: { ...session, on_resume: 'ignore', idle_seconds: 600 },
      }),
      200,
    );
    expect(edited).toMatchObject({ target: 'session', idle_seconds: 600, on_resume: 'ignore' });
    const byTrace = await svc.api(`/api/evals/online-rules/${session.id}/evaluations?trace_id=abc`, { project: c.project });
    expect((await expectJson<{ details: Array<{ field: string }> }>(byTrace, 422)).details[0].field).toBe('trace_id');

    // An old-style body is a trace rule, unchanged.
    const trace = await c.create(base);
    expect(trace).toMatchObject({ target: 'trace', delay_seconds: 60 });
    expect(trace).not.toHaveProperty('idle_seconds');
  });
});
