import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertFixRepairs, byRule, lintText, located, none, pipeline, single } from './lint-helpers';

const edges = '  start -> a -> done';

describe('attribute rules', () => {
  it('type_known: an unregistered handler type, with did-you-mean; custom types count as known', () => {
    const text = pipeline(`  a [type="wait.humna", label="Ship?"]\n${edges}`);
    const d = single(text, 'type_known');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: '"wait.humna"', line: 3, character: 10 });
    assertFixRepairs(text, d);
    const custom = pipeline(`  a [type="deploy"]\n${edges}`);
    assert.equal(single(custom, 'type_known').nodeId, 'a');
    none(custom, 'type_known', { customHandlerTypes: ['deploy'] });
  });

  it('fidelity_valid: node, edge and graph default', () => {
    const text = pipeline(`  graph [default_fidelity=compact]\n  a [prompt="x", fidelity="summary:hgh"]\n${edges}`);
    const d = single(text, 'fidelity_valid');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: '"summary:hgh"', line: 4, character: 26 });
    assertFixRepairs(text, d);
    const edge = pipeline(`  a [prompt="x"]\n  start -> a\n  a -> done [fidelity=ful]`);
    assert.equal(single(edge, 'fidelity_valid').edge?.to, 'done');
    none(pipeline(`  a [prompt="x", fidelity=full]\n${edges}`), 'fidelity_valid');
  });

  it('retry_budget_non_negative: negative, boolean, fractional and unparseable budgets, node and both graph spellings', () => {
    for (const [value, reason] of [['-1', /negative/], ['true', /boolean/], ['1.5', /fractional/], ['"lots"', /not an integer/]] as const) {
      const text = pipeline(`  a [prompt="x", max_retries=${value}]\n${edges}`);
      const d = single(text, 'retry_budget_non_negative');
      assert.equal(d.severity, 'error');
      assert.match(d.message, reason);
      assert.deepEqual(located(text, d), { text: value, line: 3, character: 29 });
    }
    const graph = pipeline(`  graph [default_max_retry=-2, default_max_retries=2.5]\n  a [prompt="x"]\n${edges}`);
    assert.deepEqual(byRule(lintText(graph), 'retry_budget_non_negative').map((d) => located(graph, d).text), ['-2', '2.5']);
    none(pipeline(`  graph [default_max_retries=3]\n  a [prompt="x", max_retries=0]\n${edges}`), 'retry_budget_non_negative');
  });

  it('unknown_attribute: a misspelt key with a did-you-mean fix, per scope', () => {
    const text = pipeline(`  a [promt="x"]\n${edges}`);
    const d = single(text, 'unknown_attribute');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: 'promt', line: 3, character: 5 });
    assert.match(d.message, /did you mean `prompt`/);
    assertFixRepairs(text, d);

    const edge = pipeline(`  a [prompt="x"]\n  start -> a\n  a -> done [condtion="outcome=success"]`);
    const onEdge = single(edge, 'unknown_attribute');
    assert.deepEqual(onEdge.edge, { from: 'a', to: 'done' });
    assertFixRepairs(edge, onEdge);

    const wrongScope = pipeline(`  graph [timeout=5m]\n  a [prompt="x"]\n${edges}`);
    assert.match(single(wrongScope, 'unknown_attribute').message, /applies to nodes/);

    none(pipeline(`  graph [goal="g", rankdir=LR]\n  a [prompt="x", color=red, max_retries=1]\n${edges}`), 'unknown_attribute');
    none(pipeline(`  a [type="deploy", target_env="prod"]\n${edges}`), 'unknown_attribute');
  });

  it('unknown_attribute reports a default block once, however many nodes inherit it', () => {
    const text = pipeline(`  node [timout=30]\n  a [prompt="x"]\n  b [prompt="y"]\n  start -> a -> b -> done`);
    const d = single(text, 'unknown_attribute');
    assert.equal(d.nodeId, undefined);
    assertFixRepairs(text, d);
  });

  it('attribute_value: integers, booleans, durations, numbers and enums', () => {
    const cases: [string, string, 'error' | 'warning'][] = [
      ['a [prompt="x", goal_gate=yes, retry_target=a]', 'yes', 'error'],
      ['a [prompt="x", timeout="5 minutes"]', '"5 minutes"', 'error'],
      ['a [prompt="x", reasoning_effort=hihg]', 'hihg', 'error'],
      ['a [prompt="x", llm_provider=mistral]', 'mistral', 'warning'],
      ['a [shape=component, max_parallel=0]\n  b [prompt="y"]\n  a -> b', '0', 'error'],
      ['a [shape=component, join_policy=quorum, quorum=1.5]\n  b [prompt="y"]\n  a -> b', '1.5', 'error'],
    ];
    for (const [body, value, severity] of cases) {
      const text = pipeline(`  ${body}\n${edges}`);
      const d = single(text, 'attribute_value');
      assert.equal(d.severity, severity, body);
      assert.equal(located(text, d).text, value, body);
      if (d.fix) assertFixRepairs(text, d);
    }
    none(pipeline(`  a [prompt="x", goal_gate="true", retry_target=a, timeout=90, reasoning_effort=low, allow_partial=TRUE, llm_provider=gemini]\n${edges}`), 'attribute_value');
  });

  it('attribute_value: a closed enum with a near miss offers the correction', () => {
    const text = pipeline(`  a [prompt="x", reasoning_effort=hihg]\n${edges}`);
    const d = single(text, 'attribute_value');
    assert.match(d.message, /did you mean `high`/);
    assertFixRepairs(text, d);
  });

  it('attribute_value: tool_env format, pointing at the bad entry', () => {
    const text = pipeline(`  a [shape=parallelogram, tool_command="env", tool_env="A=1,B C"]\n${edges}`);
    assert.deepEqual(located(text, single(text, 'attribute_value')), { text: 'B C', line: 3, character: 60 });
    none(pipeline(`  a [shape=parallelogram, tool_command="env", tool_env="report_path, tool.output"]\n${edges}`), 'attribute_value');
    none(pipeline(`  a [shape=parallelogram, tool_command="env", tool_env="A=1,B=2"]\n${edges}`), 'attribute_value');
    none(pipeline(`  a [shape=parallelogram, tool_command="env", tool_env="{\\"A\\": \\"1\\"}"]\n${edges}`), 'attribute_value');
  });

  it('attribute_value: feedback_from names a real node, with did-you-mean', () => {
    const body = `  gen [prompt="x", feedback_from=critc]\n  critic [shape=parallelogram, tool_command="echo ok"]\n  start -> gen -> critic -> done`;
    const text = pipeline(body);
    const d = single(text, 'attribute_value');
    assert.equal(d.severity, 'error');
    assert.deepEqual(located(text, d), { text: 'critc', line: 3, character: 33 });
    assertFixRepairs(text, d);
    none(pipeline(body.replace('critc', 'critic')), 'attribute_value');
  });

  it('attribute_value: stylesheet declarations are checked against the table', () => {
    const text = pipeline(`  graph [model_stylesheet="* { reasoning_effort: extreme; }"]\n  a [prompt="x"]\n${edges}`);
    assert.equal(located(text, single(text, 'attribute_value')).text, 'extreme');
  });
});

describe('unknown_attribute fixes keep DOT valid', () => {
  it('a quoted dotted key is renamed with its quotes', () => {
    const text = pipeline(`  m [shape=house, "manager.max_cycls"=3]\n  start -> m -> done`);
    const d = single(text, 'unknown_attribute');
    assert.match(assertFixRepairs(text, d), /"manager\.max_cycles"=3/);
  });
});
