import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCallBody } from '../../core/agents/agent-body.js';
import type { CaseResultView } from '../../core/model/eval-run.js';
import { conversationAgent } from '../helpers/conversation-agents.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../helpers/fake-providers.js';
import { buildDist, REPO_ROOT } from '../helpers/processes.js';
import { ORDER_FACT, ruleBasedUser } from '../helpers/refund-conversation.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { parseJson, runCli, type CliResult } from '../cli/run-cli.js';

/**
 * `agent-eval run` with conversation cases, end to end (issue 30): the compiled CLI in child
 * processes against a real service. A suite file with a scripted conversation runs locally (a
 * module's agent function that remembers, or forgets, what the user said; an HTTP agent called
 * with the turn and the history) and on the service's workflows, its progress shown turn by
 * turn; a simulated user is played by the CLI through its own provider configuration; the file
 * is written back by `suites show --yaml` and pushed again unchanged.
 */

interface RunJson {
  passed: boolean;
  problems: string[];
  run: { run_id: string; status: string; execution: string; summary: { total_cases: number; passed: number; failed: number } };
  results: CaseResultView[];
}

/** The SDK tests' agents with memory, loaded by the CLI as a module (TypeScript, through tsx). */
const AGENTS = path.join(REPO_ROOT, 'test', 'helpers', 'sdk-memory-agents.ts');
const REMEMBERS = `${AGENTS}:memoryAgent`;
const FORGETS = `${AGENTS}:forgetsAfterTwoTurns`;

const CONVERSATION = `name: conversations
scorers: [contains]
cases:
  - name: single
    input: my name is Bo. What is my name?
    expected: {outputContains: [Bo]}
  - name: memory name
    turns:
      - input: Hi, my name is Ana.
      - input: I live in Lyon.
        expected: {outputContains: [Noted]}
      - input: Nice weather today.
      - input: What is my name?
        expected: {outputContains: [Ana]}
`;

const SIMULATED = `name: simulated
scorers: [turnsToGoal]
cases:
  - name: broken order
    simulation:
      persona: Dana, short messages.
      goal: A refund for order 4417.
      facts: ["${ORDER_FACT}"]
      max_turns: 6
      first_message: My order arrived broken.
`;

let service: TestService;
let agent: TestAgent;
let anthropic: FakeProvider;
let dir: string;
let env: Record<string, string | undefined>;
const file = (name: string) => path.join(dir, name);

function cli(args: string[], extra: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCli(args, { env: { ...env, ...extra }, cwd: dir });
}

function expectExit(result: CliResult, code: number): void {
  expect(result.code, `exit ${result.code}\n--- stdout:\n${result.stdout}\n--- stderr:\n${result.stderr}`).toBe(code);
}

/** The progress lines of turns, as the CLI wrote them on stderr (no terminal: one line each). */
const turnLines = (r: CliResult) => r.stderr.split('\n').filter((line) => / turn \d+\/\d+/.test(line));

beforeAll(async () => {
  agent = await startTestAgent(conversationAgent);
  anthropic = await startFakeProvider('anthropic');
  anthropic.setDefault(ruleBasedUser);
  [service] = await Promise.all([startTestService({ EVAL_RETRY_TIME_SCALE: '0.001' }), buildDist()]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-cli-conversations-'));
  fs.writeFileSync(file('conversations.yaml'), CONVERSATION);
  fs.writeFileSync(file('simulated.yaml'), SIMULATED);
  // No provider of the machine running the tests: the CLI's provider is the one a test gives it.
  env = {
    AGENT_EVAL_URL: service.apiUrl!,
    AGENT_EVAL_API_KEY: service.apiKey!,
    AGENT_EVAL_CONFIG: file('no-config.json'),
    ANTHROPIC_API_KEY: undefined,
    OPENAI_API_KEY: undefined,
    GOOGLE_CLOUD_PROJECT: undefined,
    ANTHROPIC_VERTEX_PROJECT_ID: undefined,
    JUDGE_PROVIDER: undefined,
  };
});

afterAll(async () => {
  await service?.stop();
  await agent?.close();
  await anthropic?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('run --local with conversation cases', () => {
  it("shows each turn's progress, and --json carries the turns", async () => {
    const r = await cli(['run', 'conversations.yaml', '--local', '--agent', REMEMBERS, '--json']);
    expectExit(r, 0);
    expect(turnLines(r)).toEqual([
      'conversations: memory name: turn 1/4 answered',
      'conversations: memory name: turn 2/4 passed',
      'conversations: memory name: turn 3/4 answered',
      'conversations: memory name: turn 4/4 passed',
    ]);
    const out = parseJson<RunJson>(r);
    expect(out.run).toMatchObject({ execution: 'local', status: 'completed', summary: { passed: 2, failed: 0 } });
    const [trial] = out.results[1].trials;
    expect(trial.conversation).toEqual({ ended: 'script_done', turns_done: 4 });
    expect(trial.turns!.map((t) => t.output)).toEqual(['Noted.', 'Noted.', 'Noted.', 'Your name is Ana.']);
    // The service holds the same turns.
    const shown = await cli(['runs', 'results', out.run.run_id, '--json']);
    expectExit(shown, 0);
    expect(parseJson<{ results: CaseResultView[] }>(shown).results[1].trials[0].turns).toHaveLength(4);
  });

  it('fails at the planted turn with an agent that forgets, and says so in the table', async () => {
    const r = await cli(['run', 'conversations.yaml', '--local', '--agent', FORGETS]);
    expectExit(r, 1);
    expect(turnLines(r).at(-1)).toMatch(/^conversations: memory name: turn 4\/4 failed: contains 0 \(/);
    expect(r.stdout).toContain('4 turns, script_done');
    expect(r.stdout).toContain('FAILED: 1 of 2 cases failed');
  });

  it('calls an HTTP agent once per turn with the turn and the history', async () => {
    const r = await cli(['run', 'conversations.yaml', '--local', '--agent', agent.url, '--json']);
    expectExit(r, 0);
    const runId = parseJson<RunJson>(r).run.run_id;
    const calls = agent.requests.map((q) => q.body as unknown as AgentCallBody).filter((b) => b.run_id === runId && b.case.name === 'memory name');
    expect(calls.map((b) => [b.turn, b.messages.length])).toEqual([
      [1, 1],
      [2, 3],
      [3, 5],
      [4, 7],
    ]);
    expect(new Set(calls.map((b) => b.session_id)).size).toBe(1);
  });

  it("plays a simulated user through the CLI's own provider, and refuses to start without one", async () => {
    const r = await cli(['run', 'simulated.yaml', '--local', '--agent', REMEMBERS, '--json'], fakeProviderEnv({ anthropic }));
    expectExit(r, 0);
    expect(turnLines(r)).toEqual(['simulated: broken order: turn 1/6 max answered', 'simulated: broken order: turn 2/6 max answered']);
    expect(parseJson<RunJson>(r).results[0].trials[0].conversation).toEqual({ ended: 'goal_met', turns_done: 2 });

    const none = await cli(['run', 'simulated.yaml', '--local', '--agent', REMEMBERS]);
    expectExit(none, 1);
    expect(none.stderr).toContain(
      "Evaluation run failed: case 'broken order' has a simulated user: a simulated user needs an LLM provider and none is configured: set ANTHROPIC_API_KEY",
    );
  });
});

describe('run on the service with conversation cases', () => {
  it('polls the results and shows each turn as the workflow records it', async () => {
    fs.writeFileSync(
      file('managed.yaml'),
      CONVERSATION.replace('name: conversations', 'name: managed-conversations').replace('name: memory name', 'name: forgetful name'),
    );
    const r = await cli(['run', 'managed.yaml', '--agent', agent.url, '--json', '--poll-interval', '100']);
    expectExit(r, 1);
    expect(turnLines(r)).toEqual([
      'managed-conversations: forgetful name: turn 1/4 answered',
      'managed-conversations: forgetful name: turn 2/4 passed',
      'managed-conversations: forgetful name: turn 3/4 answered',
      expect.stringMatching(/^managed-conversations: forgetful name: turn 4\/4 failed: contains 0/),
    ]);
    const out = parseJson<RunJson>(r);
    expect(out.run).toMatchObject({ execution: 'managed', status: 'completed', summary: { passed: 1, failed: 1 } });
    expect(out.results[1].trials[0].turns).toHaveLength(4);
  });
});

describe('suites with conversations, pushed and written back', () => {
  it('suites show --yaml writes a file that pushes back unchanged', async () => {
    const pushed = await cli(['suites', 'push', 'conversations.yaml', '--json']);
    expectExit(pushed, 0);
    const shown = await cli(['suites', 'show', 'conversations', '--yaml']);
    expectExit(shown, 0);
    expect(shown.stdout).toContain('turns:\n      - input: Hi, my name is Ana.\n');
    fs.writeFileSync(file('exported.yaml'), shown.stdout);
    const again = await cli(['suites', 'push', 'exported.yaml']);
    expectExit(again, 0);
    expect(again.stdout).toContain('Unchanged suite conversations');
    const table = await cli(['suites', 'show', 'conversations']);
    expect(table.stdout).toContain('4 turns: Hi, my name is Ana.');
  });

  it('names the line and the case of a bad conversation shape', async () => {
    fs.writeFileSync(file('bad.yaml'), 'name: bad\nscorers: [contains]\ncases:\n  - name: no input\n    turns:\n      - expected: {outputContains: [x]}\n');
    const r = await cli(['suites', 'validate', 'bad.yaml']);
    expectExit(r, 1);
    expect(r.stderr).toContain("Invalid suite file: cases[0].turns[0].input: is required (case 'no input', at line 6)");
  });
});
