import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateCondition, parseCondition } from '../../engine/conditions/condition';

function evaluate(text: string, status: string, context: Record<string, unknown> = {}, preferredLabel?: string): boolean {
  const parsed = parseCondition(text);
  assert.ok(parsed.ok, `parse ${text}`);
  return evaluateCondition(parsed.condition, { status, ...(preferredLabel ? { preferredLabel } : {}), lookup: (k) => context[k] });
}

describe('condition language', () => {
  const table: Array<[string, string, Record<string, unknown>, boolean, string?]> = [
    ['', 'fail', {}, true],
    ['outcome=success', 'success', {}, true],
    ['outcome=success', 'fail', {}, false],
    ['outcome!=success', 'fail', {}, true],
    ['outcome=success && context.tool.last_line=go', 'success', { 'tool.last_line': 'go' }, true],
    ['outcome=success && context.tool.last_line=go', 'success', { 'tool.last_line': 'stop' }, false],
    ['context.missing=x', 'success', {}, false],
    ['context.missing!=x', 'success', {}, true],
    ['context.flag=true', 'success', { flag: true }, true],
    ['tool.last_line=gate_pass', 'success', { 'tool.last_line': 'gate_pass' }, true],
    ['preferred_label=Fix', 'success', {}, true, 'Fix'],
    ['outcome=ship', 'success', {}, true, 'ship'],
    ['outcome="a b"', 'a b', {}, true],
  ];
  for (const [text, status, context, expected, label] of table) {
    it(`${text || '(empty)'} with ${status}${label ? `/${label}` : ''} → ${expected}`, () => assert.equal(evaluate(text, status, context, label), expected));
  }

  const errors: Array<[string, number]> = [
    ['outcome>3', 8],
    ['outcome==success', 8],
    ['outcome=success &&', 19],
    ['outcome=success || x=y', 17],
    ['context=x', 1],
    ['outcome=', 9],
  ];
  for (const [text, column] of errors) {
    it(`rejects ${text} at column ${column}`, () => {
      const parsed = parseCondition(text);
      assert.equal(parsed.ok, false);
      if (!parsed.ok) {
        assert.equal(parsed.error.span.start + 1, column, parsed.error.message);
        assert.match(parsed.error.message, new RegExp(`column ${column}`));
      }
    });
  }
});
