import { describe, expect, it } from 'vitest';
import { diffRows, diffStats, foldUnchanged, parsePromptsState, promptsHref, sameContent, versionText } from '../../../ui/src/lib/prompts.js';
import { texts } from '../../fixtures/corpus/texts.js';

describe('the /prompts page state in the URL', () => {
  it('round-trips the prompt, the version and the diff', () => {
    const s = parsePromptsState(new URLSearchParams('q=sup&prompt=support-reply&version=2&diff=1..3'));
    expect(s).toEqual({ q: 'sup', prompt: 'support-reply', version: 2, diff: { from: 1, to: 3 } });
    expect(promptsHref(s)).toBe('/prompts?q=sup&prompt=support-reply&version=2&diff=1..3');
    expect(promptsHref({ prompt: 'team/onboarding' })).toBe('/prompts?prompt=team%2Fonboarding');
  });

  it('drops versions and diffs that are not version numbers', () => {
    expect(parsePromptsState(new URLSearchParams('prompt=p&version=0&diff=1..x'))).toEqual({ prompt: 'p' });
    expect(parsePromptsState(new URLSearchParams('version=abc&diff=3'))).toEqual({});
  });
});

describe('prompt versions as text and their diff', () => {
  it('writes a chat prompt as [role] blocks', () => {
    expect(
      versionText({
        template: null,
        messages: [
          { role: 'system', content: 'Be kind.' },
          { role: 'user', content: '{{q}}' },
        ],
      }),
    ).toBe('[system]\nBe kind.\n\n[user]\n{{q}}');
    expect(versionText({ template: 'Hi {{name}}', messages: null })).toBe('Hi {{name}}');
  });

  it('marks removed and added lines with their numbers, and the changed words of paired lines', () => {
    const rows = diffRows('one\ntwo\nthree\n', 'one\n2\nthree\nfour\n');
    expect(rows.map((r) => [r.kind, r.oldNo, r.newNo, r.text])).toEqual([
      ['same', 1, 1, 'one'],
      ['del', 2, null, 'two'],
      ['add', null, 2, '2'],
      ['same', 3, 3, 'three'],
      ['add', null, 4, 'four'],
    ]);
    expect(diffStats(rows)).toEqual({ added: 2, removed: 1 });
    const words = diffRows('Answer politely.', 'Answer briefly.');
    expect(words[0].parts).toEqual([
      { text: 'Answer ', changed: false },
      { text: 'politely', changed: true },
      { text: '.', changed: false },
    ]);
    expect(words[1].parts?.filter((p) => p.changed).map((p) => p.text)).toEqual(['briefly']);
    // Each side's pieces spell its own line exactly, spacing included.
    const spaced = diffRows('You are  an agent.', 'You are an agent for {{product}}.');
    expect(spaced.map((r) => r.parts?.map((p) => p.text).join(''))).toEqual(['You are  an agent.', 'You are an agent for {{product}}.']);
  });

  it('folds long unchanged runs away from the changes', () => {
    const old = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const neu = old.replace('line 10', 'line ten');
    const blocks = foldUnchanged(diffRows(old, neu), 2);
    expect(blocks.map((b) => [b.kind, b.rows.length])).toEqual([
      ['fold', 8],
      ['rows', 6],
      ['fold', 7],
    ]);
  });
});

describe('a new version with nothing changed', () => {
  const text = { type: 'text' as const, template: texts.travelSystemPrompt, messages: null, config: { model: 'gpt-4o', temperature: 0.2 }, description: null };
  const chat = {
    type: 'chat' as const,
    template: null,
    messages: [{ role: 'system', content: texts.supportSystemPrompt }],
    config: null,
    description: 'support',
  };

  it('is the same content whatever order the config keys come in', () => {
    expect(sameContent(text, { template: texts.travelSystemPrompt, config: { temperature: 0.2, model: 'gpt-4o' } })).toBe(true);
    expect(sameContent(chat, { messages: [{ content: texts.supportSystemPrompt, role: 'system' }], description: 'support' })).toBe(true);
  });

  it('differs on any edit of the template, messages, config or description', () => {
    expect(sameContent(text, { template: `${texts.travelSystemPrompt}\n`, config: text.config })).toBe(false);
    expect(sameContent(text, { template: texts.travelSystemPrompt, config: { model: 'gpt-4o', temperature: 0.3 } })).toBe(false);
    expect(sameContent(text, { template: texts.travelSystemPrompt, config: text.config, description: 'new' })).toBe(false);
    expect(sameContent(chat, { messages: [], description: 'support' })).toBe(false);
  });
});
