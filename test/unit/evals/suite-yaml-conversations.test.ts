import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError, BadRequestError, ValidationError } from '../../../core/errors.js';
import { normalizeSuiteKeys, parseSuiteDefinition, type SuiteDefinition } from '../../../core/model/suite.js';
import { parseSuiteYaml, suiteYaml, withSuiteFileLines } from '../../../core/model/suite-yaml.js';
import { defaultScorerRegistry } from '../../../core/scoring/index.js';
import { hostileStrings, texts } from '../../fixtures/corpus/texts.js';

/** Suite files with scripted conversations and simulated users: read, written back (`suites show --yaml`), and their bad shapes named by line and case. */

const scorers = defaultScorerRegistry();

const FILE = `name: support
scorers: [contains]
cases:
  - name: single
    input: {question: "Where is my order?"}
    expected: {outputContains: [order]}
  - name: remembers the order
    turns:
      - input: "Hi, my order 4417 arrived broken."
      - input: {ask: refund, channel: chat}
        expected: {outputContains: ["4417"]}
        scorers: [contains, {name: latency, config: {maxMs: 5000}}]
      - input: What was my order number again?
        expected: {outputContains: ["4417"]}
    scorers:
      - contains
      - name: knowledgeRetention
        config: {facts: [{text: "4417", mustAppearAfter: 1}]}
      - turnScores
  - name: refund by a simulated user
    simulation:
      persona: Dana, a busy customer who writes short messages.
      goal: Get a refund for order 4417.
      facts: ["The order number is 4417."]
      max_turns: 6
      first_message: Hi, my order arrived broken.
      stop: {outputContains: [refund issued]}
      seed: 7
    scorers: [turnsToGoal]
    minScore: 0.5
`;

const parse = (text: string) => parseSuiteDefinition(parseSuiteYaml(text), scorers);

/** A definition written out and read back. */
const roundTrip = (def: SuiteDefinition) => parse(suiteYaml(def));

/** The problem a file's definition has, placed in the file (as the SDK, the CLI and the API's YAML bodies report it). */
function placed(text: string): AppError {
  try {
    parse(text);
  } catch (err) {
    const out = withSuiteFileLines(text, err);
    if (out instanceof AppError) return out;
    throw err;
  }
  throw new Error('the file was accepted');
}

const issuesOf = (err: AppError) => (err as ValidationError).issues.map((i) => `${i.field}: ${i.message}`);

describe('suite files with conversations', () => {
  it('reads scripted turns and a simulated user, as a JSON body gives them', () => {
    const def = parse(FILE);
    expect(def.cases.map((c) => [c.name, c.input !== undefined, c.turns?.length ?? null, c.simulation?.max_turns ?? null])).toEqual([
      ['single', true, null, null],
      ['remembers the order', false, 3, null],
      ['refund by a simulated user', false, null, 6],
    ]);
    expect(def.cases[1].turns![1]).toEqual({
      input: { ask: 'refund', channel: 'chat' },
      expected: { outputContains: ['4417'] },
      scorers: [
        { name: 'contains', config: {} },
        { name: 'latency', config: { maxMs: 5000 } },
      ],
    });
    expect(def.cases[2].simulation).toEqual({
      persona: 'Dana, a busy customer who writes short messages.',
      goal: 'Get a refund for order 4417.',
      facts: ['The order number is 4417.'],
      max_turns: 6,
      first_message: 'Hi, my order arrived broken.',
      stop: { outputContains: ['refund issued'] },
      seed: 7,
    });
    expect(parseSuiteDefinition(normalizeSuiteKeys(JSON.parse(JSON.stringify(parseSuiteYaml(FILE)))), scorers)).toEqual(def);
  });

  it('writes a definition back as a file that reads to the same definition', () => {
    const def = parse(FILE);
    const text = suiteYaml(def);
    expect(text).toContain('scorers:\n  - contains\n');
    expect(text).toContain('    simulation:\n      persona: Dana, a busy customer who writes short messages.\n');
    expect(text).not.toContain('&');
    expect(roundTrip(def)).toEqual(def);
    // Defaults left out, non-defaults kept.
    const other = parse('name: x\naggregation: min\nminScore: 0.9\ncases:\n  - {name: a, input: null, scorers: [contains], weight: 2}\n');
    expect(roundTrip(other)).toEqual(other);
  });

  it('round-trips any text a turn or a simulated user may hold: corpus texts, hostile strings, generated ones', () => {
    const accepted = (raw: unknown) => {
      try {
        return parseSuiteDefinition(normalizeSuiteKeys(raw), scorers);
      } catch {
        return undefined;
      }
    };
    const suiteOf = (text: string, structured: unknown) => ({
      name: 'texts',
      scorers: ['contains'],
      cases: [
        { name: 'scripted', turns: [{ input: text }, { input: structured, expected: { outputContains: [text.slice(0, 50) || 'x'] } }] },
        { name: 'simulated', simulation: { persona: text || 'p', goal: text || 'g', facts: text ? [text] : [], max_turns: 3 }, scorers: ['turnsToGoal'] },
      ],
    });
    const samples = [...Object.values(texts), ...hostileStrings().map((h) => h.text)];
    let checked = 0;
    for (const text of samples) {
      const def = accepted(suiteOf(text, { text, list: [text, 1, null, true] }));
      if (!def) continue;
      expect(roundTrip(def)).toEqual(def);
      checked++;
    }
    expect(checked).toBeGreaterThan(samples.length / 2);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.jsonValue({ maxDepth: 4 }), (text, structured) => {
        const def = accepted(suiteOf(text, structured));
        if (def) expect(roundTrip(def)).toEqual(def);
      }),
      { numRuns: 300 },
    );
  });
});

describe('bad conversation shapes: the field, the case and the line', () => {
  it('a turn without input, an empty script, a simulated user without max_turns', () => {
    const err = placed(`name: bad
scorers: [contains]
cases:
  - name: ok
    input: 1
  - name: forgets the input
    turns:
      - input: hello
      - expected: {outputContains: [x]}
  - name: no turns
    turns: []
  - name: no limit
    simulation: {persona: p, goal: g}
`);
    expect(err).toBeInstanceOf(ValidationError);
    expect(issuesOf(err)).toEqual([
      "cases[1].turns[1].input: is required (case 'forgets the input', at line 9)",
      "cases[2].turns: a scripted conversation needs at least one turn (case 'no turns', at line 11)",
      expect.stringMatching(/^cases\[3\]\.simulation\.max_turns: .+ \(case 'no limit', at line 13\)$/),
    ]);
  });

  it('a case of two shapes, and a stop condition misspelt', () => {
    const two = placed('name: bad\nscorers: [contains]\ncases:\n  - name: both\n    input: hi\n    turns:\n      - input: hello\n');
    expect(two).toBeInstanceOf(BadRequestError);
    expect(two.message).toBe(
      "cases[0]: give exactly one of input (a single call), turns (a scripted conversation) or simulation (a simulated user); this case gives input and turns (case 'both', at line 4)",
    );
    const stop = placed(
      'name: bad\nscorers: [contains]\ncases:\n  - name: s\n    simulation:\n      persona: p\n      goal: g\n      max_turns: 3\n      stop: {outputContain: [x]}\n',
    );
    expect(issuesOf(stop)).toEqual([
      "cases[0].simulation.stop.outputContains: is required (case 's', at line 9)",
      'cases[0].simulation.stop: Unrecognized key: "outputContain" (case \'s\', at line 9)',
    ]);
  });

  it('a conversation-level scorer in a turn or on a single-turn case', () => {
    const inTurn = placed('name: bad\nscorers: [contains]\ncases:\n  - name: t\n    turns:\n      - input: a\n        scorers: [turnScores]\n');
    expect(inTurn).toBeInstanceOf(BadRequestError);
    expect(inTurn.message).toMatch(
      /^cases\[0\]\.turns\[0\]\.scorers\[0\]: 'turnScores' scores a whole conversation: list it in the case's scorers, not a turn's \(case 't', at line 7\)$/,
    );
    const single = placed('name: bad\nscorers:\n  - contains\n  - turnsToGoal\ncases:\n  - name: one call\n    input: a\n');
    // The file spells defaultScorers `scorers`: its line is found under that name.
    expect(single.message).toMatch(/^defaultScorers\[1\]: 'turnsToGoal' scores a whole conversation .* \(at line 4\)$/);
  });

  it('leaves problems it cannot place, and other errors, as they are', () => {
    const err = new ValidationError([{ field: '(body)', message: 'too many problems' }]);
    expect(issuesOf(withSuiteFileLines('name: x\n', err) as AppError)).toEqual(['(body): too many problems']);
    const other = new Error('boom');
    expect(withSuiteFileLines('name: x\n', other)).toBe(other);
  });
});
