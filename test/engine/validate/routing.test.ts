import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertFixRepairs, located, none, pipeline, single } from './lint-helpers';

describe('routing rules', () => {
  it('retry_target_exists: node and graph targets, with did-you-mean', () => {
    const text = pipeline('  work [prompt="x", retry_target=wrok]\n  start -> work -> done');
    const d = single(text, 'retry_target_exists');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: 'wrok', line: 3, character: 33 });
    assertFixRepairs(text, d);
    const graph = pipeline('  graph [fallback_retry_target=nowhere]\n  work [prompt="x"]\n  start -> work -> done');
    assert.equal(located(graph, single(graph, 'retry_target_exists')).text, 'nowhere');
    none(pipeline('  work [prompt="x", retry_target=work]\n  start -> work -> done'), 'retry_target_exists');
  });

  it('goal_gate_has_retry: a gate without a retry target; a graph-level target counts', () => {
    const text = pipeline('  work [prompt="x", goal_gate=true]\n  start -> work -> done');
    const d = single(text, 'goal_gate_has_retry');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: 'goal_gate=true', line: 3, character: 20 });
    none(pipeline('  graph [retry_target=work]\n  work [prompt="x", goal_gate=true]\n  start -> work -> done'), 'goal_gate_has_retry');
    none(pipeline('  work [prompt="x", goal_gate=true, fallback_retry_target=work]\n  start -> work -> done'), 'goal_gate_has_retry');
    const restart = '  work [prompt="x"]\n  gate [shape=parallelogram, tool_command="true", goal_gate=true]\n  start -> work -> gate\n  gate -> done [condition="outcome=success"]\n  gate -> work [condition="outcome=fail", loop_restart=true]';
    none(pipeline(restart), 'goal_gate_has_retry');
    // A loop_restart edge that leaves the loop is no retry path.
    single(pipeline('  work [prompt="x"]\n  gate [shape=parallelogram, tool_command="true", goal_gate=true]\n  start -> work -> gate\n  gate -> done [loop_restart=true]'), 'goal_gate_has_retry');
  });

  const diamond = (dead: string, live: string) =>
    pipeline(`  work [prompt="x"]\n  route [shape=diamond]\n  fixup [prompt="fix"]\n  start -> work -> route\n  route -> fixup [condition="${dead}"]\n  route -> done [condition="${live}"]\n  fixup -> work`);

  it('TOPO-001 dead_conditional_edge: outcome=fail / outcome!=success out of a diamond', () => {
    for (const dead of ['outcome=fail', 'outcome!=success', 'context.x=1 && outcome=retry']) {
      const text = diamond(dead, 'outcome=success');
      const d = single(text, 'TOPO-001');
      assert.equal(d.rule, 'dead_conditional_edge');
      assert.equal(d.severity, 'error');
      assert.deepEqual(d.edge, { from: 'route', to: 'fixup' });
      assert.match(located(text, d).text, /^outcome!?=(fail|success|retry|SUCCESS)$/);
      assert.equal(located(text, d).line, 7);
    }
    none(diamond('context.tests=red', 'context.tests=green'), 'TOPO-001');
    // Outcomes compare exactly at run time: `outcome=SUCCESS` never holds, and outcome_value says so once.
    none(diamond('outcome=SUCCESS', 'outcome=success'), 'TOPO-001');
    assert.match(single(diamond('outcome=SUCCESS', 'outcome=success'), 'outcome_value').message, /did you mean `success`/);
  });

  it('TOPO-001 offers the complement of the one context condition beside it', () => {
    const text = diamond('outcome=fail', 'context.tests=green');
    const d = single(text, 'TOPO-001');
    assert.match(d.fix?.title ?? '', /context\.tests!=green/);
    assertFixRepairs(text, d);
  });

  it('TOPO-001 also out of start, tools and human gates, widened by the node\'s own attributes', () => {
    const tool = (attributes: string, condition: string) =>
      pipeline(`  gate [shape=parallelogram, tool_command="make"${attributes}]\n  start -> gate\n  gate -> done [condition="outcome=success"]\n  gate -> start_over [condition="${condition}"]\n  start_over [prompt="x"]\n  start_over -> gate`);
    const d = single(tool('', 'outcome=partial_success'), 'TOPO-001');
    assert.equal(d.nodeId, 'gate');
    assert.match(d.message, /a tool node ends in success or fail/);
    none(tool('', 'outcome=fail'), 'TOPO-001');
    none(tool(', continue_on_fail=true', 'outcome=partial_success'), 'TOPO-001');
    none(tool(', requires="plan"', 'outcome=skipped'), 'TOPO-001');
    const human = pipeline('  review [shape=hexagon]\n  start -> review\n  review -> done [label="Yes"]\n  review -> done [label="No", condition="outcome=retry"]');
    assert.match(single(human, 'TOPO-001').message, /a human gate ends in success/);
    const start = pipeline('  work [prompt="x"]\n  start -> work -> done\n  start -> done [condition="outcome=fail"]');
    assert.match(single(start, 'TOPO-001').message, /out of `start`: a start node always succeeds/);
    none(start, 'TOPO-006');
    none(pipeline('  work [prompt="x"]\n  start -> work\n  work -> done [condition="outcome=retry"]\n  work -> done'), 'TOPO-001');
  });

  const toolGate = (label: string) =>
    pipeline(`  work [prompt="x"]\n  gate [shape=parallelogram, tool_command="make test"]\n  start -> work -> gate\n  gate -> done [condition="${label}"]\n  gate -> work [condition="outcome=fail"]`);

  it('TOPO-002 stale_label_collision: a last_line edge that a stale value can match beside outcome=fail', () => {
    const text = toolGate('context.tool.last_line=ok');
    const d = single(text, 'TOPO-002');
    assert.equal(d.rule, 'stale_label_collision');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: 'context.tool.last_line=ok', line: 6, character: 27 });
    assert.equal(d.related?.length, 1);
    const repaired = assertFixRepairs(text, d);
    assert.match(repaired, /condition="context\.tool\.last_line=ok && outcome=success"/);
    none(toolGate('context.tool.last_line=ok && outcome=success'), 'TOPO-002');
    none(toolGate('tool.last_line=ok && outcome!=fail'), 'TOPO-002');
  });

  it('TOPO-006 fail_routed_to_exit: a failure edge straight into the exit', () => {
    const text = pipeline('  work [prompt="x"]\n  fixup [prompt="y"]\n  start -> work\n  work -> done [condition="outcome=fail"]\n  work -> fixup [condition="outcome=success"]\n  fixup -> done');
    const d = single(text, 'TOPO-006');
    assert.equal(d.rule, 'fail_routed_to_exit');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(d.edge, { from: 'work', to: 'done' });
    assert.deepEqual(located(text, d), { text: 'outcome=fail', line: 6, character: 27 });
    none(pipeline('  work [prompt="x"]\n  fixup [prompt="y"]\n  start -> work\n  work -> fixup [condition="outcome=fail"]\n  work -> done [condition="outcome=success"]\n  fixup -> done'), 'TOPO-006');
  });
});
