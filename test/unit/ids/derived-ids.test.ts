import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparisonFeedbackId, feedbackScoreId } from '../../../core/feedback/annotation-scores.js';
import { contentHash, derivedUuid, hexId, scoreUuid } from '../../../core/ids/derived-ids.js';
import { judgeTraceId, onlineScoreId } from '../../../core/online/judge-trace.js';
import { sampleFraction } from '../../../core/online/sampling.js';
import { agentSpanId, caseTraceId } from '../../../workflows/case-trace.js';

/**
 * Stored rows carry these ids and a retry must find them again: the values below were computed
 * with the encodings as they stood before they were gathered into core/ids/derived-ids.ts
 * (feedback.ts's derivedUuid, case-trace.ts's and judge-trace.ts's score ids, online-rule.ts's
 * sampling), and must never change.
 */
describe('derived ids keep their encodings bit for bit', () => {
  it('feedback and comparison ids (version 5, RFC 4122 variant)', () => {
    expect(feedbackScoreId('1b4e28ba-2fa1-11d2-883f-0016d3cca427', '0af7651916cd43dd8448eb211c80319c', 'rating')).toBe('c87ee35b-7672-5dcf-8585-09bfb4731dce');
    expect(comparisonFeedbackId('9f0c1e2a-4b7d-4e8f-a1b2-c3d4e5f60718')).toBe('a84c91b4-1653-5d0d-901e-cd0076dd7784');
  });

  it("a run trial's and an online rule's score ids, trace and span ids", () => {
    expect(scoreUuid('run-42:3:1:score:exact')).toBe('7b98d358-d511-4d70-a728-8d96d08a9004');
    expect(onlineScoreId('rule-7', '0af7651916cd43dd8448eb211c80319c', 'helpfulness')).toBe('4055a373-22c9-48eb-adc3-35f9eafc5b94');
    expect(caseTraceId({ runId: 'run-42', caseIndex: 3, trial: 1 })).toBe('6886627e96717164d983b0e6428ebdcd');
    expect(agentSpanId({ runId: 'run-42', caseIndex: 3, trial: 1 }, 0)).toBe('b09b374c7936eef9');
    expect(judgeTraceId('rule-7', '0af7651916cd43dd8448eb211c80319c', 'helpfulness')).toBe(
      hexId('online:rule-7:0af7651916cd43dd8448eb211c80319c:helpfulness:judge', 32),
    );
  });

  it("an online rule's sampling draw", () => {
    expect(sampleFraction('rule-7', '0af7651916cd43dd8448eb211c80319c')).toBe(0.2504447894096653);
  });

  it('a content hash ignores the order of keys, not their values', () => {
    expect(contentHash({ b: { e: 3, d: 2 }, a: 1 })).toBe(contentHash({ a: 1, b: { d: 2, e: 3 } }));
    // The idempotency keys' request hashes: SHA-256 of the JSON with keys sorted at every depth.
    expect(contentHash({ b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe('d160c1d18d8e9652389a7e5bfcb5f257751caeb73d2b081b92652271e90ca1b8');
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
  });

  it('every derived UUID is UUID-shaped and stable, for any text (agents send every script)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(derivedUuid(text)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(scoreUuid(text)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(derivedUuid(text)).toBe(derivedUuid(text));
      }),
    );
  });
});
