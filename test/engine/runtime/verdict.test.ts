import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outcomeFromResult } from '../../../engine/runtime/verdict';

describe('verdict ladder', () => {
  it('report_outcome is authoritative over contradicting prose', () => {
    const outcome = outcomeFromResult({ responseText: 'all done, mission accomplished', reportedOutcome: { status: 'fail', failure_reason: 'tests red' } }, false);
    assert.deepEqual([outcome.status, outcome.isExplicit, outcome.failureReason], ['fail', true, 'tests red']);
  });
  it('fenced JSON after prose is an explicit verdict', () => {
    const outcome = outcomeFromResult({ responseText: 'All 7 pass.\n```json\n{"status": "success", "preferred_label": "ship"}\n```' }, true);
    assert.deepEqual([outcome.status, outcome.isExplicit, outcome.preferredLabel], ['success', true, 'ship']);
  });
  it('pure JSON and embedded verdicts are explicit', () => {
    assert.equal(outcomeFromResult({ responseText: '{"status":"retry"}' }, false).status, 'retry');
    const embedded = outcomeFromResult({ responseText: 'I think {"note": 1} and finally {"status": "partial_success", "notes": "2 left"} ok' }, true);
    assert.deepEqual([embedded.status, embedded.isExplicit, embedded.notes], ['partial_success', true, '2 left']);
  });
  it('prose is SUCCESS on an ordinary node and RETRY on a goal gate, never explicit', () => {
    const ordinary = outcomeFromResult({ responseText: 'Here is a summary.' }, false);
    assert.deepEqual([ordinary.status, ordinary.isExplicit], ['success', false]);
    const gate = outcomeFromResult({ responseText: 'NOT CONVERGED - 2 of 7 criteria pass.' }, true);
    assert.deepEqual([gate.status, gate.isExplicit], ['retry', false]);
  });
  it('an empty response fails', () => {
    const outcome = outcomeFromResult({ responseText: '  ' }, false);
    assert.deepEqual([outcome.status, outcome.isExplicit], ['fail', false]);
  });
  it('structured output is a verdict only when it carries a status', () => {
    assert.deepEqual(
      [outcomeFromResult({ responseText: '{}', structuredOutput: { name: 'Alice' } }, true).isExplicit, outcomeFromResult({ responseText: '', structuredOutput: { status: 'success' } }, true).isExplicit],
      [false, true],
    );
  });
  it('JSON without a recognised status is prose', () => {
    const outcome = outcomeFromResult({ responseText: '{"assessment": "NOT CONVERGED"}' }, true);
    assert.deepEqual([outcome.status, outcome.isExplicit], ['retry', false]);
  });
});
