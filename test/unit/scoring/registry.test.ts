import { describe, expect, it } from 'vitest';
import { ScorerRefListSchema } from '../../../core/model/eval-case.js';
import { createScorerRegistry, defaultScorerRegistry, RULE_SCORERS } from '../../../core/scoring/index.js';

const refs = (list: unknown) => ScorerRefListSchema.parse(list);

describe('the default scorer registry', () => {
  it("knows the SPEC's rule-based scorers, the trajectory scorers, the conversation scorers and LLM judges by name", () => {
    expect(defaultScorerRegistry().names()).toEqual([
      'contains',
      'exactMatch',
      'toolSelection',
      'regex',
      'latency',
      'tokenEfficiency',
      'jsonMatchScorer',
      'toolCalls',
      'steps',
      'loops',
      'toolErrors',
      'spanMatch',
      'selectionConfidence',
      'turnsToGoal',
      'turnScores',
      'llmJudge',
      'response_quality_judge',
      'safety_judge',
      'helpfulness_judge',
      'code_review_judge',
      'reasoning',
      'grounding',
      'trajectoryJudge',
      'spanJudge',
      'goalCompletion',
      'userFrustration',
      'consistency',
      'knowledgeRetention',
    ]);
  });

  it('gives every scorer a description and a config schema that accepts {}', () => {
    for (const scorer of RULE_SCORERS) {
      expect(scorer.kind).toBe('rule');
      expect(scorer.description.length).toBeGreaterThan(20);
      expect(scorer.configSchema.safeParse({}).success).toBe(true);
    }
  });

  it('accepts known scorers with good configs', () => {
    expect(defaultScorerRegistry().check(refs(['contains', { name: 'regex', config: { pattern: 'x', flags: 'i' } }]))).toEqual([]);
  });

  it('reports an unknown name with the known ones', () => {
    const issues = defaultScorerRegistry().check(refs(['contains', 'containz']));
    expect(issues).toHaveLength(1);
    expect(issues[0].index).toBe(1);
    expect(issues[0].message).toMatch(/^unknown scorer 'containz' \(known: contains, exactMatch/);
  });

  it('reports a bad config by field, and an unknown config key', () => {
    const issues = defaultScorerRegistry().check(
      refs([
        { name: 'latency', config: { maxMs: -1 } },
        { name: 'contains', config: { caseSensitiv: true } },
      ]),
    );
    expect(issues.map((i) => i.index)).toEqual([0, 1]);
    expect(issues[0].message).toContain("scorer 'latency': config.maxMs");
    expect(issues[1].message).toContain("scorer 'contains': config");
    expect(issues[1].message).toContain('caseSensitiv');
  });

  it('refuses two scorers with one name', () => {
    expect(() => createScorerRegistry([...RULE_SCORERS, RULE_SCORERS[0]])).toThrow("scorer 'contains' registered twice");
  });
});
