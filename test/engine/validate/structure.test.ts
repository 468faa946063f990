import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertFixRepairs, located, none, pipeline, single, validateText } from './lint-helpers';

const loop = `  work [prompt="x"]
  gate [shape=parallelogram, tool_command="true"]
  start -> work -> gate
  gate -> done [condition="outcome=success"]
  gate -> work [condition="outcome=fail"]`;

describe('structure rules', () => {
  it('start_node: none, or more than one', () => {
    const missing = 'digraph nostart {\n  work [prompt="x"]\n  done [shape=Msquare]\n  work -> done\n}';
    const d = single(missing, 'start_node');
    assert.equal(d.severity, 'error');
    assert.deepEqual(located(missing, d), { text: 'nostart', line: 0, character: 8 });
    const two = pipeline(`  begin [shape=Mdiamond]\n${loop}\n  begin -> work`);
    const extra = single(two, 'start_node');
    assert.equal(extra.nodeId, 'begin');
    assert.deepEqual(located(two, extra), { text: 'begin', line: 3, character: 2 });
    none(pipeline(loop), 'start_node');
  });

  it('start_node recognises the id `start` without a shape', () => {
    none('digraph G {\n  start -> work -> exit\n  work [prompt="x"]\n}', 'start_node');
  });

  it('terminal_node: none, or more than one', () => {
    const missing = 'digraph G {\n  start [shape=Mdiamond]\n  work [prompt="x"]\n  start -> work\n}';
    assert.equal(single(missing, 'terminal_node').severity, 'error');
    const two = pipeline(`${loop}\n  stop [shape=Msquare]\n  gate -> stop [condition="outcome=partial_success"]`);
    const extra = single(two, 'terminal_node');
    assert.deepEqual(located(two, extra), { text: 'stop', line: 8, character: 2 });
    none(pipeline(loop), 'terminal_node');
  });

  it('reachability: a node no edge leads to', () => {
    const text = pipeline(`${loop}\n  island [prompt="never"]`);
    const d = single(text, 'reachability');
    assert.equal(d.severity, 'error');
    assert.equal(d.nodeId, 'island');
    assert.deepEqual(located(text, d), { text: 'island', line: 8, character: 2 });
    none(pipeline(loop), 'reachability');
  });

  it('edge_target_exists: an edge to an undeclared id, a warning with a did-you-mean fix', () => {
    const text = pipeline(`${loop.replace('start -> work -> gate', 'start -> work -> gaet')}`);
    const d = single(text, 'edge_target_exists');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(d.edge, { from: 'work', to: 'gaet' });
    assert.deepEqual(located(text, d), { text: 'gaet', line: 5, character: 19 });
    assert.match(d.message, /did you mean `gate`/);
    assertFixRepairs(text, d);
    none(pipeline(loop), 'edge_target_exists');
  });

  it('edge_target_exists: an implicit node is admitted with one warning and a fix that declares it', () => {
    const text = 'digraph G {\n  start [shape=Mdiamond]\n  done [shape=Msquare] // the end\n  start -> summarize -> done\n  start -> summarize\n}\n';
    assert.deepEqual(validateText(text).filter((d) => d.severity === 'error'), []);
    const d = single(text, 'edge_target_exists');
    assert.equal(d.nodeId, 'summarize');
    assert.deepEqual(located(text, d), { text: 'summarize', line: 3, character: 11 });
    assert.equal(d.fix?.title, 'Declare `summarize`');
    const repaired = assertFixRepairs(text, d);
    assert.match(repaired, /done \[shape=Msquare\] \/\/ the end\n {2}summarize \[prompt="summarize"\]\n/);
    const oneLine = 'digraph G { start [shape=Mdiamond]; done [shape=Msquare]; start -> x -> done }';
    assertFixRepairs(oneLine, single(oneLine, 'edge_target_exists'));
    const clustered = 'digraph G {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  subgraph cluster_a {\n    node [shape=parallelogram]\n    t [tool_command="make"]\n  }\n  start -> t -> x -> done\n}';
    assert.match(assertFixRepairs(clustered, single(clustered, 'edge_target_exists')), /done \[shape=Msquare\]\n {2}x \[prompt="x"\]/);
    const noStatements = 'digraph G {\n  start -> x -> exit\n}';
    assertFixRepairs(noStatements, single(noStatements, 'edge_target_exists'));
  });

  it('start_no_incoming: an edge back into start', () => {
    const text = pipeline(`${loop}\n  work -> start [condition="outcome=retry"]`);
    const d = single(text, 'start_no_incoming');
    assert.equal(d.severity, 'error');
    assert.deepEqual(d.edge, { from: 'work', to: 'start' });
    assert.deepEqual(located(text, d), { text: 'start', line: 8, character: 10 });
    assert.equal(d.related?.length, 1);
    none(pipeline(loop), 'start_no_incoming');
  });

  it('exit_no_outgoing: an edge out of the exit node', () => {
    const text = pipeline(`${loop}\n  done -> work`);
    const d = single(text, 'exit_no_outgoing');
    assert.equal(d.severity, 'error');
    assert.deepEqual(located(text, d), { text: 'done', line: 8, character: 2 });
    none(pipeline(loop), 'exit_no_outgoing');
  });
});

describe('reachability through retry targets', () => {
  it('a node reached only as a retry_target is reachable, and the loop it closes is no acyclic graph', () => {
    const text = pipeline('  t [shape=parallelogram, tool_command="make", retry_target=fix]\n  fix [shape=parallelogram, tool_command="true"]\n  start -> t -> done\n  fix -> t');
    none(text, 'reachability');
    none(text, 'TOPO-003');
    const graphLevel = pipeline('  graph [retry_target=fix]\n  t [shape=parallelogram, tool_command="make", goal_gate=true]\n  fix [prompt="fix it"]\n  start -> t -> done\n  fix -> t');
    none(graphLevel, 'reachability');
  });
});
