import { describe, expect, it } from 'vitest';
import { toolCallsScorer } from '../../../core/scoring/trajectory/tool-calls.js';
import { MISMATCH_PATTERN, TOOL_NAME } from '../../../core/store/clickhouse/tool-analytics-sql.js';
import { TOOL_NAME_KEYS } from '../../../core/scoring/trajectory/span-tree.js';
import { plainTree, scoreTree } from '../trajectory/score.js';

/**
 * The tool analytics read a `toolCalls` score's argument mismatch from its reason
 * (tool-analytics-sql.ts MISMATCH_PATTERN, run by ClickHouse's RE2; the same syntax in JS here).
 * Reasons made by the real scorer in every mode: the pattern names the tool exactly when the first
 * mismatch is that tool's arguments, and nothing for a wrong, missing, extra or forbidden tool.
 */
const pattern = new RegExp(MISMATCH_PATTERN);
const mismatchOf = (reason: string) => pattern.exec(reason)?.[1] ?? '';

const made = [
  { name: 'search flights (v2)', args: { from: 'TLV', to: 'NRT' } },
  { name: 'get_weather', args: { city: 'Kyōto' } },
];
const tree = plainTree(made);

describe('MISMATCH_PATTERN over toolCalls reasons', () => {
  it.each([
    ['strict', [{ name: 'search flights (v2)', args: { from: 'TLV', to: 'HND' } }, { name: 'get_weather' }], 'search flights (v2)'],
    ['strict', [{ name: 'search flights (v2)' }, { name: 'get_weather', args: { city: 'Paris' } }], 'get_weather'],
    ['unordered', [{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'search flights (v2)' }], 'get_weather'],
    ['superset', [{ name: 'search flights (v2)', args: { to: 'HND' } }], 'search flights (v2)'],
    ['strict', [{ name: 'get_weather' }, { name: 'search flights (v2)' }], ''],
    ['strict', [{ name: 'search flights (v2)' }], ''],
    ['unordered', [{ name: 'search flights (v2)' }, { name: 'get_weather' }, { name: 'book' }], ''],
    ['subset', [{ name: 'get_weather' }], ''],
    ['strict', [{ name: 'search flights (v2)' }, { name: 'get_weather' }], ''],
  ] as const)('%s %j names %j', async (mode, calls, tool) => {
    const detail = await scoreTree(toolCallsScorer, tree, { mode, calls, argsMatch: 'subset' });
    expect(mismatchOf(detail.reason), detail.reason).toBe(tool);
  });

  it('a forbidden tool is not an argument mismatch', async () => {
    const detail = await scoreTree(toolCallsScorer, tree, { calls: [], forbidden: ['get_weather'] });
    expect(mismatchOf(detail.reason), detail.reason).toBe('');
  });
});

describe('TOOL_NAME', () => {
  it('tries every convention key of the span tree, in its order, then the span name', () => {
    expect(TOOL_NAME).toBe(`arrayFirst(v -> v != '', [${TOOL_NAME_KEYS.map((k) => `attributes['${k}']`).join(', ')}, name])`);
    for (const k of TOOL_NAME_KEYS) expect(k).toMatch(/^[a-zA-Z_.]+$/);
  });
});
