import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { ruleDocs } from '../../../engine/validate/rule-docs';
import { builtinRules } from '../../../engine/validate/rules';
import { renderRulesDoc, rulesDocPath } from '../../../scripts/rules-doc';
import { lintText, pipeline } from './lint-helpers';

describe('rule registry and docs', () => {
  it('every built-in rule is documented, and every documented rule exists', () => {
    assert.deepEqual(Object.keys(ruleDocs).sort(), builtinRules.map((rule) => rule.name).sort());
    assert.equal(new Set(builtinRules.map((rule) => rule.name)).size, builtinRules.length);
  });

  it('docs/rules.md is generated from the registry and up to date', () => {
    assert.equal(fs.readFileSync(rulesDocPath, 'utf8'), renderRulesDoc(), 'run `npx tsx scripts/rules-doc.ts --write`');
  });

  it('diagnostics carry the documented severity and code', () => {
    const text = pipeline(`  work [promt="x", max_retries=-1]
  route [shape=diamond, must_write="x.md"]
  gate [shape=parallelogram, tool_command="pytest | tail -3 && echo ok"]
  start -> work -> route
  route -> gate [condition="outcome=fail"]
  route -> done [condition="outcome=success"]
  gate -> done [condition="outcome=fail"]
  gate -> work [condition="context.tool.last_line=ok"]`);
    const seen = new Set<string>();
    for (const d of lintText(text)) {
      const doc = ruleDocs[d.rule];
      if (!doc) continue;
      seen.add(d.rule);
      if (d.rule !== 'attribute_value') assert.equal(d.severity, doc.severity, d.rule);
      assert.equal(d.code, doc.code, d.rule);
    }
    assert.ok(seen.size >= 8, [...seen].join(', '));
  });
});
