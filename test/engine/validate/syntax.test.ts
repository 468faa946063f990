import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { located, none, pipeline, single } from './lint-helpers';

describe('syntax rules', () => {
  it('condition_syntax points at the offending character inside the condition', () => {
    const text = pipeline('  a [shape=parallelogram, tool_command="true"]\n  start -> a\n  a -> done [condition="outcome>3"]');
    const d = single(text, 'condition_syntax');
    assert.equal(d.severity, 'error');
    assert.deepEqual(d.edge, { from: 'a', to: 'done' });
    assert.deepEqual(located(text, d), { text: '>', line: 5, character: 31 });
    none(pipeline('  a [shape=parallelogram, tool_command="true"]\n  start -> a\n  a -> done [condition="outcome=success && context.x!=1"]'), 'condition_syntax');
  });

  it('condition_syntax maps columns through DOT escapes', () => {
    const text = pipeline('  a [shape=parallelogram, tool_command="true"]\n  start -> a\n  a -> done [condition="context.msg=\\"a b\\" || outcome=fail"]');
    const d = single(text, 'condition_syntax');
    assert.equal(located(text, d).text, '||');
  });

  it('condition_syntax also checks manager.stop_condition', () => {
    const text = pipeline('  m [shape=house, "manager.stop_condition"="context.done=="]\n  start -> m -> done');
    assert.equal(located(text, single(text, 'condition_syntax')).text, '==');
  });

  it('stylesheet_syntax maps stylesheet errors into the attribute value', () => {
    const text = pipeline('  graph [model_stylesheet="* { llm_model: gpt-5; }\n    .fast { colour: red; }"]\n  a [prompt="x"]\n  start -> a -> done');
    const d = single(text, 'stylesheet_syntax');
    assert.equal(d.severity, 'error');
    assert.deepEqual(located(text, d), { text: 'colour', line: 4, character: 12 });
    none(pipeline('  graph [model_stylesheet="* { llm_model: gpt-5; } #a { reasoning_effort: low; }"]\n  a [prompt="x"]\n  start -> a -> done'), 'stylesheet_syntax');
  });
});
