import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byRule, lintText, located, none, pipeline, single } from './lint-helpers';

const convergence = pipeline(`  work [prompt="x", feedback_from=gate]
  gate [shape=parallelogram, tool_command="make test > out.txt 2>&1 && echo gate_pass || echo gate_fail"]
  start -> work -> gate
  gate -> done [condition="context.tool.last_line=gate_pass"]
  gate -> work [condition="context.tool.last_line=gate_fail", loop_restart=true]`);

describe('topology rules', () => {
  it('a feedback-carrying convergence loop is clean of every topological rule', () => {
    for (const rule of ['TOPO-001', 'TOPO-002', 'TOPO-003', 'TOPO-004', 'TOPO-005', 'TOPO-006', 'loop_restart_without_feedback']) none(convergence, rule);
  });

  it('TOPO-003 acyclic_graph: no cycle at all', () => {
    const text = pipeline('  work [prompt="x"]\n  start -> work -> done', 'oneshot');
    const d = single(text, 'TOPO-003');
    assert.equal(d.rule, 'acyclic_graph');
    assert.equal(d.severity, 'warning');
    assert.match(d.message, /recipe/);
    assert.deepEqual(located(text, d), { text: 'oneshot', line: 0, character: 8 });
  });

  it('TOPO-004 cycle_no_conditional_exit: a loop left only unconditionally, or not at all', () => {
    const text = pipeline('  work [prompt="x"]\n  gate [shape=parallelogram, tool_command="make"]\n  start -> work -> gate\n  gate -> work [condition="outcome=fail"]\n  gate -> done');
    const d = single(text, 'TOPO-004');
    assert.equal(d.rule, 'cycle_no_conditional_exit');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(d.edge, { from: 'gate', to: 'done' });
    assert.deepEqual(located(text, d), { text: 'gate -> done', line: 7, character: 2 });

    const closed = pipeline('  a [prompt="x"]\n  b [shape=parallelogram, tool_command="true"]\n  start -> a -> b -> a\n  start -> done');
    const noExit = single(closed, 'TOPO-004');
    assert.match(noExit.message, /no way out/);
    assert.deepEqual(located(closed, noExit), { text: 'a', line: 3, character: 2 });
    none(convergence, 'TOPO-004');
  });

  it('TOPO-004 counts a human gate as a gated way out', () => {
    none(pipeline('  review [shape=hexagon, label="Ship?"]\n  rework [prompt="x"]\n  start -> review\n  review -> done [label="[A] Approve"]\n  review -> rework [label="[R] Rework"]\n  rework -> review'), 'TOPO-004');
  });

  it('TOPO-005 cycle_no_deterministic_exit: a loop of LLM nodes only', () => {
    const text = pipeline('  write [prompt="x"]\n  judge [prompt="judge it"]\n  start -> write -> judge\n  judge -> done [condition="outcome=success"]\n  judge -> write [condition="outcome=fail"]');
    const d = single(text, 'TOPO-005');
    assert.equal(d.rule, 'cycle_no_deterministic_exit');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: 'write', line: 3, character: 2 });
    none(convergence, 'TOPO-005');
  });

  it('loop_restart_without_feedback: a restart loop with no feedback_from on it', () => {
    const text = convergence.replace(', feedback_from=gate', '');
    const d = single(text, 'loop_restart_without_feedback');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(d.edge, { from: 'gate', to: 'work' });
    assert.deepEqual(located(text, d), { text: 'loop_restart=true', line: 7, character: 62 });
  });

  it('scales: a 3,000-node chain and a 3,000-node cycle analyse without recursion limits', () => {
    const ids = Array.from({ length: 3000 }, (_, i) => `n${i}`);
    const chain = pipeline(`${ids.map((id, i) => `  ${id} [prompt="x"]\n  ${id} -> ${ids[i + 1] ?? 'done'}`).join('\n')}\n  start -> n0\n  n2999 -> n0 [condition="outcome=fail"]`);
    const diagnostics = lintText(chain);
    assert.equal(byRule(diagnostics, 'TOPO-005').length, 1);
    assert.equal(byRule(diagnostics, 'TOPO-003').length, 0);
  });
});
