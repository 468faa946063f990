import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDocument } from '../../../language-server/analysis/document-analysis';
import { complete } from '../../../language-server/features/completion';
import { completeCondition } from '../../../language-server/features/completion-condition';
import { completeStylesheet } from '../../../language-server/features/completion-stylesheet';
import { completeVariables } from '../../../language-server/features/completion-variables';

describe('condition completion', () => {
  const facts = { contextKeys: [{ key: 'tool.last_line', writer: 'node `t`' }], labels: ['Fix it', 'ok'] };
  it('offers keys, then operators, then values, then &&', () => {
    const keys = completeCondition('outcome=success && con', 22, facts);
    assert.deepEqual([keys.start, keys.end], [19, 22]);
    assert.ok(keys.items.some((i) => i.label === 'context.tool.last_line'));
    assert.deepEqual(completeCondition('outcome ', 8, facts).items.map((i) => i.label), ['=', '!=']);
    const values = completeCondition('outcome!=su', 11, facts);
    assert.equal(values.start, 9);
    assert.ok(values.items.some((i) => i.label === 'success'));
    assert.deepEqual(completeCondition('preferred_label=', 16, facts).items.map((i) => i.label), ['\\"Fix it\\"', 'ok']);
    assert.deepEqual(completeCondition('outcome=success ', 16, facts).items.map((i) => i.label), ['&&']);
  });
});

describe('stylesheet completion', () => {
  const facts = { classes: ['critic'], nodeIds: ['review'], models: ['gpt-5'] };
  it('offers selectors outside rules, properties and values inside', () => {
    const selectors = completeStylesheet('* { llm_model: x; } .', 21, facts);
    assert.equal(selectors.start, 20);
    assert.ok(['*', 'box', '.critic', '#review'].every((s) => selectors.items.some((i) => i.label === s)));
    assert.deepEqual(completeStylesheet('* { ', 4, facts).items.map((i) => i.label), ['llm_model', 'llm_provider', 'reasoning_effort']);
    assert.deepEqual(completeStylesheet('* { llm_provider: an', 20, facts).items.map((i) => i.label), ['openai', 'anthropic', 'gemini']);
    assert.deepEqual(completeStylesheet('* { llm_model: ', 15, facts).items.map((i) => i.label), ['gpt-5']);
  });
});

describe('variable completion', () => {
  it('offers $goal, loop variables, critiques and context keys after $', () => {
    const result = completeVariables('Work on $g', 10, { goal: 'Ship', critiquedNodeIds: ['impl'], contextKeys: [{ key: 'tool.output', writer: 'node `t`' }], usedNames: ['target_dir', 'goal'] });
    assert.equal(result?.start, 8);
    assert.deepEqual(result?.items.map((i) => i.label), ['$goal', '$iteration', '$loop_count', '$prior_critiques_impl', '$tool.output', '$target_dir']);
    assert.equal(result?.items.at(-2)?.insertText, '${tool.output}');
    assert.equal(completeVariables('no dollar', 5, { critiquedNodeIds: [], contextKeys: [], usedNames: [] }), undefined);
  });
});

describe('completion on a document', () => {
  const text = 'digraph G {\n  start [shape=Mdiamond]\n  t [shape=parallelogram, tool_command="make"]\n  g [shape=hexagon]\n  start -> t\n  t -> g [condition=""]\n  g -> \n}\n';
  const analysis = analyzeDocument({ uri: 'file:///c.dot', version: 1, text });

  it('prefers attributes of the node’s handler and hides attributes for other handlers lower', () => {
    const items = complete(analysis, text.indexOf('shape=hexagon'));
    const sort = (name: string) => items.find((i) => i.label === name)?.sortText ?? '';
    assert.ok(sort('human.default_choice') < sort('tool_command'), 'a hexagon is a human gate');
    const quoted = items.find((i) => i.label === 'human.default_choice');
    assert.equal(quoted?.textEdit && 'newText' in quoted.textEdit ? quoted.textEdit.newText : '', 'human.default_choice="$0"');
  });

  it('completes node ids after a dangling arrow and condition keys from the tool upstream', () => {
    assert.ok(complete(analysis, text.indexOf('g -> ') + 5).some((i) => i.label === 't'));
    const keys = complete(analysis, text.indexOf('condition=""') + 11).map((i) => i.label);
    assert.ok(keys.includes('context.tool.last_line'));
  });

  it('offers a gate’s targets and labels for human.default_choice', () => {
    const gate = 'digraph G {\n  g [shape=hexagon, "human.default_choice"=""]\n  g -> yes [label="[Y] Ship"]\n  g -> no\n}\n';
    const gateAnalysis = analyzeDocument({ uri: 'file:///g.dot', version: 1, text: gate });
    assert.deepEqual(complete(gateAnalysis, gate.indexOf('=""') + 2).map((i) => i.label), ['yes', 'no', '[Y] Ship']);
  });

  it('offers pipeline snippets at a statement start', () => {
    const labels = complete(analysis, text.indexOf('  start -> t')).map((i) => i.label);
    for (const snippet of ['convergence loop', 'human gate', 'fan-out / fan-in']) assert.ok(labels.includes(snippet), snippet);
  });
});
