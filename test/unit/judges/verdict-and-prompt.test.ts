import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { promptText, renderTemplate, usesVariables } from '../../../core/judges/prompt.js';
import { BAND_LABELS, RUBRICS } from '../../../core/judges/rubrics.js';
import { parseVerdict } from '../../../core/judges/verdict.js';
import { REPO_ROOT } from '../../helpers/processes.js';

/** A string matcher, typed for use inside an expected object. */
const matching = (pattern: RegExp) => expect.stringMatching(pattern) as unknown as string;

describe('verdicts', () => {
  it('takes a score in 0..1 with a reason and evidence', () => {
    expect(parseVerdict({ score: 0.4, reason: 'half', evidence: ['q'] })).toEqual({ verdict: { score: 0.4, reason: 'half', evidence: ['q'] } });
    expect(parseVerdict({ score: 1, reason: 'ok' })).toEqual({ verdict: { score: 1, reason: 'ok', evidence: [] } });
  });

  it('names what is wrong with an answer that is not a verdict', () => {
    expect(parseVerdict({ score: 1.5, reason: 'x', evidence: [] })).toEqual({ problem: 'score must be between 0 and 1 (got 1.5)' });
    expect(parseVerdict({ score: '0.5', reason: 'x', evidence: [] })).toMatchObject({ problem: matching(/^score .*\(got "0\.5"\)$/) });
    expect(parseVerdict({ score: 0.5, reason: '  ', evidence: [] })).toMatchObject({ problem: matching(/^reason must not be empty/) });
    expect(parseVerdict('0.5')).toMatchObject({ problem: matching(/^the answer /) });
  });
});

describe('judge prompts', () => {
  it('fills the four variables, spaces allowed, and leaves anything else alone', () => {
    const values = { input: 'IN', output: 'OUT', expected: 'EXP', trace: 'TR' };
    expect(renderTemplate('{{input}} {{ output }} {{expected}} {{trace}} {{other}} {input}', values)).toBe('IN OUT EXP TR {{other}} {input}');
    expect(usesVariables('Rate {{ output }}')).toBe(true);
    expect(usesVariables('Rate the answer')).toBe(false);
  });

  it('shows non-text values as JSON and cuts very long ones', () => {
    expect(promptText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(promptText('x'.repeat(20), 10)).toBe(`${'x'.repeat(10)}\n[… 10 more characters not shown]`);
  });

  it('documents every built-in rubric word for word in docs/judges.md', () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'judges.md'), 'utf8');
    for (const rubric of RUBRICS) {
      expect(doc, rubric.name).toContain(`### \`${rubric.name}\``);
      expect(doc, rubric.name).toContain(rubric.criteria);
      rubric.bands.forEach((band, i) => expect(doc, `${rubric.name} band ${i}`).toContain(`${BAND_LABELS[i]}: ${band}`));
    }
  });
});
