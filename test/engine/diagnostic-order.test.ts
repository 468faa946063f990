// Diagnostics at one position and severity are ordered by rule name as `localeCompare` orders
// them; compareRuleNames answers without the collator where it can, and must agree with it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareRuleNames } from '../../engine/model/diagnostics';
import { builtinRules } from '../../engine/validate/rules';
import { frontEndDocs, ruleDocs } from '../../engine/validate/rule-docs';

const agrees = (a: string, b: string): void => assert.equal(compareRuleNames(a, b), Math.sign(a.localeCompare(b)), `${a} vs ${b}`);

describe('compareRuleNames', () => {
  it('orders every pair of rule names as localeCompare does', () => {
    const names = [...new Set([...builtinRules.map((rule) => rule.name), ...Object.keys(ruleDocs), ...Object.keys(frontEndDocs)])];
    assert.ok(names.length > 40);
    for (const a of names) for (const b of names) agrees(a, b);
  });

  it('orders random names as localeCompare does', () => {
    const name = fc.string({ unit: fc.constantFrom(...'abcxyz_-ABZ019é '.split('')), maxLength: 8 });
    fc.assert(fc.property(name, name, (a, b) => agrees(a, b)), { numRuns: 20_000 });
  });
});
