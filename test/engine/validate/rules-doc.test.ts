import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { frontEndDocs, ruleDocs } from '../../../engine/validate/rule-docs';
import { lint, validate } from '../../../engine/validate';
import { parseDot } from '../../../engine/parse/dot-parser';
import { builtinRules } from '../../../engine/validate/rules';
import { renderRulesDoc, rulesDocPath } from '../../../scripts/rules-doc';
import { lintText, pipeline, validateText } from './lint-helpers';

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

  it('parser and transform diagnostics are documented too', () => {
    const inputs = [
      'digraph G {\n  a -> \n}',
      'graph G { a -- b }',
      pipeline('  graph [goal="a"]\n  graph [goal="b"]\n  "my node" [prompt="x"]\n  w [prompt="x"]\n  w [prompt="y", response_schema="nope.json"]\n  start -> w:out -> "my node" -> done'),
      pipeline('  t [label=<<b>x</b>>]\n  start -> t -> done'),
    ];
    const rules = new Set(inputs.flatMap((text) => lintText(text).map((d) => d.rule)));
    for (const rule of ['syntax', 'graph_kind', 'duplicate_attribute', 'duplicate_node_conflict', 'node_id_syntax', 'port_ignored', 'html_value', 'response_schema']) {
      if (rule !== 'syntax' && rule !== 'graph_kind') assert.ok(rules.has(rule), `${rule} was not produced`);
      assert.ok(frontEndDocs[rule], `${rule} is not documented`);
    }
    for (const rule of rules) assert.ok(ruleDocs[rule] ?? frontEndDocs[rule], `${rule} is not documented`);
  });

  it('validate() runs only the validate tier; lint() adds the lint tier', () => {
    const text = pipeline('  work [prompt="x"]\n  route [shape=diamond]\n  start -> work -> route\n  route -> done [condition="outcome=fail"]\n  route -> work [condition="outcome=success"]');
    const validateRules = new Set(validateText(text).map((d) => d.rule));
    const lintRules = new Set(lintText(text).map((d) => d.rule));
    assert.ok(!validateRules.has('dead_conditional_edge'));
    assert.ok(lintRules.has('dead_conditional_edge'));
    const parsed = parseDot(text);
    const tiers = new Map(builtinRules.map((rule) => [rule.name, rule.tier]));
    for (const d of validate(parsed.graph!, parsed.lineIndex)) assert.equal(tiers.get(d.rule), 'validate', d.rule);
    assert.ok(lint(parsed.graph!, parsed.lineIndex).length >= validate(parsed.graph!, parsed.lineIndex).length);
  });
});
