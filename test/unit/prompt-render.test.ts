import { describe, expect, it } from 'vitest';
import { BadRequestError, ValidationError } from '../../core/errors.js';
import { MAX_TEMPLATE_CHARS, parseCreatePrompt, parsePromptUpdate, SetLabelsSchema } from '../../core/model/prompt.js';
import { promptVariables, RenderRequestSchema, renderPrompt, RenderTooLargeError, templateVariables } from '../../core/model/prompt-render.js';
import { validate } from '../../core/validate.js';
import { thrown } from '../helpers/thrown.js';

const vars = (o: Record<string, string>) => new Map(Object.entries(o));
const text = (template: string) => ({ type: 'text' as const, template, messages: null });
/** A chat prompt of a system message and a user message. */
const chat = (system: string, user: string) => ({
  type: 'chat' as const,
  template: null,
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ],
});

describe('templateVariables', () => {
  it('finds {{name}} with optional whitespace, each name once in order of first use', () => {
    expect(templateVariables('Hi {{name}}, {{ city }} and {{\tname\n}} {{  country}}')).toEqual(['name', 'city', 'country']);
  });

  it('ignores what is not an identifier between double braces', () => {
    expect(templateVariables('{{}} {{ 1st }} {{a b}} {{a-b}} {{ }} {single} {{{x}}}')).toEqual(['x']);
  });

  it('reads every message of a chat prompt', () => {
    expect(promptVariables(chat('You are {{persona}}', '{{question}} {{persona}}'))).toEqual(['persona', 'question']);
  });
});

describe('renderPrompt', () => {
  it('substitutes given variables and reports used, missing and unused', () => {
    const out = renderPrompt(text('Hello {{ name }}, weather in {{city}}? {{ name }}!'), vars({ name: 'Ada', extra: 'x' }));
    expect(out).toEqual({ type: 'text', text: 'Hello Ada, weather in {{city}}? Ada!', messages: null, used: ['name'], missing: ['city'], unused: ['extra'] });
  });

  it('leaves a missing variable exactly as written, whitespace included', () => {
    expect(renderPrompt(text('a {{  who\t}} b'), new Map()).text).toBe('a {{  who\t}} b');
  });

  it('renders in one pass: a value holding {{x}} is not expanded again', () => {
    const out = renderPrompt(text('{{a}} {{b}}'), vars({ a: '{{b}}', b: 'B' }));
    expect(out.text).toBe('{{b}} B');
    expect(out.missing).toEqual([]);
  });

  it('treats replacement patterns in values literally ($&, $1)', () => {
    expect(renderPrompt(text('x={{v}}'), vars({ v: '$& $1 $$' })).text).toBe('x=$& $1 $$');
  });

  it('takes any name from the Map, __proto__ and constructor included', () => {
    const out = renderPrompt(
      text('{{__proto__}} {{constructor}} {{toString}}'),
      new Map([
        ['__proto__', 'P'],
        ['constructor', 'C'],
      ]),
    );
    expect(out.text).toBe('P C {{toString}}');
    expect(out.missing).toEqual(['toString']);
  });

  it('renders each message of a chat prompt and keeps roles', () => {
    const out = renderPrompt(chat('Be {{tone}}.', '{{q}}'), vars({ tone: 'brief' }));
    expect(out).toEqual({
      type: 'chat',
      text: null,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '{{q}}' },
      ],
      used: ['tone'],
      missing: ['q'],
      unused: [],
    });
  });

  it('refuses output past the limit before building it', () => {
    const template = '{{v}}'.repeat(1000);
    expect(() => renderPrompt(text(template), vars({ v: 'x'.repeat(10_000) }), 1_000_000)).toThrow(RenderTooLargeError);
    expect(renderPrompt(text(template), vars({ v: 'x'.repeat(100) }), 1_000_000).text).toHaveLength(100_000);
  });

  it('stays linear on hostile templates', () => {
    const start = performance.now();
    renderPrompt(text('{{ '.repeat(30_000) + '{{' + ' '.repeat(30_000)), new Map());
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

describe('parseCreatePrompt', () => {
  it.each([
    [undefined, 'name is required'],
    [[], 'name is required'],
    [{}, 'name is required'],
    [{ name: '  ', type: 'text', template: 'x' }, 'name is required'],
    [{ name: 'p' }, 'type must be "text" or "chat"'],
    [{ name: 'p', type: 'TEXT', template: 'x' }, 'type must be "text" or "chat"'],
    [{ name: 'p', type: 7 }, 'type must be "text" or "chat"'],
    [{ name: 'p', type: 'text' }, 'template is required for text prompts'],
    [{ name: 'p', type: 'text', template: '   ' }, 'template is required for text prompts'],
    [{ name: 'p', type: 'chat' }, 'messages are required for chat prompts'],
    [{ name: 'p', type: 'chat', messages: [] }, 'messages are required for chat prompts'],
  ])('%# -> 400 %s', (body, message) => {
    const err = thrown(() => parseCreatePrompt(body));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message).toBe(message);
  });

  it('fills defaults and keeps only the content of the type', () => {
    expect(parseCreatePrompt({ name: ' greet ', type: 'text', template: 'Hi {{x}}', labels: ['production', 'production'] })).toEqual({
      name: 'greet',
      type: 'text',
      template: 'Hi {{x}}',
      messages: null,
      config: null,
      labels: ['production'],
      description: null,
      commit_message: null,
    });
  });

  it('keeps config as sent, a __proto__ key included', () => {
    const config = JSON.parse('{"temperature": 0.2, "__proto__": {"polluted": true}}') as Record<string, unknown>;
    const input = parseCreatePrompt({ name: 'p', type: 'text', template: 't', config });
    expect(JSON.stringify(input.config)).toBe('{"temperature":0.2,"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['template', { name: 'p', type: 'text', template: 5 }],
    ['template', { name: 'p', type: 'text', template: 'x'.repeat(MAX_TEMPLATE_CHARS + 1) }],
    ['template', { name: 'p', type: 'text', template: 'a\ud800b' }],
    ['template', { name: 'p', type: 'text', template: 'a\u0000b' }],
    ['name', { name: 'p\u0000', type: 'text', template: 't' }],
    ['name', { name: 'a\nb', type: 'text', template: 't' }],
    ['name', { name: '0d9f3c1e-6a47-4c1b-9a55-3f0e8f7c2b11', type: 'text', template: 't' }],
    ['messages', { name: 'p', type: 'text', template: 't', messages: [{ role: 'user', content: 'x' }] }],
    ['template', { name: 'p', type: 'chat', messages: [{ role: 'user', content: 'x' }], template: 't' }],
    ['messages', { name: 'p', type: 'chat', messages: 'hello' }],
    ['messages[0].content', { name: 'p', type: 'chat', messages: [{ role: 'user' }] }],
    ['messages', { name: 'p', type: 'chat', messages: Array.from({ length: 201 }, () => ({ role: 'user', content: 'x' })) }],
    ['labels[0]', { name: 'p', type: 'text', template: 't', labels: ['Prod'] }],
    ['labels[0]', { name: 'p', type: 'text', template: 't', labels: ['latest'] }],
    ['config', { name: 'p', type: 'text', template: 't', config: [1] }],
    ['config.x', { name: 'p', type: 'text', template: 't', config: { x: 'a\ud800' } }],
    ['(body)', { name: 'p', type: 'text', template: 't', stray: 1 }],
  ])('%# -> 422 naming %s', (field, body) => {
    const err = thrown(() => parseCreatePrompt(body));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.field)).toContain(field);
  });
});

describe('parsePromptUpdate', () => {
  const current = { name: 'greet', type: 'text' as const };

  it('takes name and type from the prompt when omitted', () => {
    expect(parsePromptUpdate({ template: 'v2' }, current)).toMatchObject({ name: 'greet', type: 'text', template: 'v2' });
  });

  it('gives the SPEC 400s for the content the type needs', () => {
    expect(thrown(() => parsePromptUpdate({}, current)).message).toBe('template is required for text prompts');
    expect(thrown(() => parsePromptUpdate({ template: 'x', type: 'nope' }, current)).message).toBe('type must be "text" or "chat"');
  });

  it('refuses a new name or type', () => {
    const err = thrown(() => parsePromptUpdate({ name: 'other', template: 'x' }, current)) as ValidationError;
    expect(err.issues[0].field).toBe('name');
    const err2 = thrown(() => parsePromptUpdate({ type: 'chat', messages: [{ role: 'user', content: 'x' }] }, current)) as ValidationError;
    expect(err2.issues.map((i) => i.field)).toContain('type');
  });
});

describe('request schemas', () => {
  it('reads variables into a Map: numbers and booleans as text, __proto__ as a name', () => {
    const body = JSON.parse('{"variables": {"__proto__": "P", "n": 3, "ok": true}}') as unknown;
    const { variables } = validate(RenderRequestSchema, body);
    expect([...variables]).toEqual([
      ['__proto__', 'P'],
      ['n', '3'],
      ['ok', 'true'],
    ]);
  });

  it('names the variable whose value is refused', () => {
    const err = thrown(() => validate(RenderRequestSchema, { variables: { a: 'x', b: { nested: 1 }, c: null } })) as ValidationError;
    expect(err.issues.map((i) => i.field)).toEqual(['variables.b', 'variables.c']);
  });

  it('refuses version and label together', () => {
    const err = thrown(() => validate(RenderRequestSchema, { version: 1, label: 'production' })) as ValidationError;
    expect(err.issues.map((i) => i.field)).toEqual(['label']);
    expect(validate(RenderRequestSchema, {}).variables.size).toBe(0);
  });

  it('moves one label or several, never none', () => {
    expect(validate(SetLabelsSchema, { label: 'production', version: 2 })).toEqual({ labels: ['production'], version: 2 });
    expect(validate(SetLabelsSchema, { labels: ['a', 'b'], version: 1 })).toEqual({ labels: ['a', 'b'], version: 1 });
    expect(thrown(() => validate(SetLabelsSchema, { version: 1 }))).toBeInstanceOf(ValidationError);
    expect(thrown(() => validate(SetLabelsSchema, { label: 'a', labels: ['b'], version: 1 }))).toBeInstanceOf(ValidationError);
    expect(thrown(() => validate(SetLabelsSchema, { label: 'latest', version: 1 }))).toBeInstanceOf(ValidationError);
    expect(thrown(() => validate(SetLabelsSchema, { label: 'a', version: 0 }))).toBeInstanceOf(ValidationError);
  });
});
