import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertFixRepairs, located, none, pipeline, single } from './lint-helpers';

const flow = (condition: string, extra = '') =>
  pipeline(`  plan [prompt="Plan.", outputs="plan_ready"]\n  check [shape=parallelogram, tool_command="make"]${extra}\n  start -> plan -> check\n  check -> done [condition="${condition}"]\n  check -> plan [condition="outcome=fail"]`);

describe('data-flow rules', () => {
  it('outcome_value: a misspelled outcome, with a did-you-mean fix', () => {
    const text = flow('outcome=sucess');
    const d = single(text, 'outcome_value');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d).text, 'sucess');
    assert.match(d.message, /never holds: did you mean `success`\?/);
    assert.match(assertFixRepairs(text, d), /condition="outcome=success"/);
    none(flow('outcome=partial_success'), 'outcome_value');
  });

  it('outcome_value: quiet where the engine can produce the value, a label an LLM node or a custom handler reports', () => {
    const labelled = (source: string) =>
      pipeline(`  ${source}\n  a [shape=parallelogram, tool_command="true"]\n  start -> n\n  n -> a [condition="outcome=process"]\n  n -> done [condition="outcome=fail"]\n  a -> done`);
    none(labelled('n [prompt="Decide."]'), 'outcome_value');
    none(labelled('n [type="my_handler"]'), 'outcome_value');
    for (const fixed of ['n [shape=parallelogram, tool_command="x"]', 'n [shape=hexagon]', 'n [shape=diamond]', 'n [shape=folder, dot_file="x.dot"]']) {
      assert.match(single(labelled(fixed), 'outcome_value').message, /`process` is not a status, and `n` \(a [\w.]+ node\) reports no label/, fixed);
    }
  });

  it('context_key_unwritten: a key nothing upstream writes, with a did-you-mean fix', () => {
    const text = flow('context.plan_redy=true');
    const d = single(text, 'context_key_unwritten');
    assert.deepEqual(located(text, d).text, 'context.plan_redy');
    assert.match(d.message, /did you mean `plan_ready`/);
    assert.match(assertFixRepairs(text, d), /condition="context\.plan_ready=true"/);
    assert.match(single(flow('context.tool.last_lin=ok'), 'context_key_unwritten').message, /did you mean `tool\.last_line`/);
    assert.match(single(flow('ghost=1'), 'context_key_unwritten').message, /`ghost`, so `ghost` is always empty/);
  });

  it('context_key_unwritten: quiet for outputs, engine keys, launch parameters, parse_json and structured output upstream', () => {
    for (const condition of ['context.plan_ready=true', 'context.tool.last_line=ok', 'context.iteration=2', 'graph.goal=x', 'last_response=x']) {
      none(flow(condition), 'context_key_unwritten');
    }
    none(flow('context.target=api', '\n  note [prompt="for $target"]\n  plan -> note'), 'context_key_unwritten');
    none(flow('context.verdict=ok', '\n  probe [shape=parallelogram, tool_command="x", parse_json=true]\n  start -> probe -> plan'), 'context_key_unwritten');
    none(flow('context.plan.approved=true', '').replace('outputs="plan_ready"', 'response_schema="{\\"type\\":\\"object\\"}"'), 'context_key_unwritten');
    // Handler keys need their handler upstream.
    assert.match(single(flow('context.human.gate.selected=A'), 'context_key_unwritten').message, /`human\.gate\.selected`/);
    none(flow('context.human.gate.selected=A', '\n  review [shape=hexagon]\n  review -> plan\n  start -> review'), 'context_key_unwritten');
    // A writer downstream of the edge does not count.
    single(flow('context.verdict=ok', '\n  probe [shape=parallelogram, tool_command="x", parse_json=true]\n  check -> probe\n  probe -> done'), 'context_key_unwritten');
  });
});
