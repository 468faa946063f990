import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keySpanOf, valueSpanOf } from '../../engine/model/graph';
import { parseDot } from '../../engine/parse/dot-parser';

describe('parseDot', () => {
  it('flattens subgraphs, applies default blocks in scope, derives classes and expands chains', () => {
    const { graph, diagnostics } = parseDot(`digraph G {
  graph [goal="ship"]
  rankdir=LR
  node [shape=box, timeout="900s"]
  subgraph cluster_loop {
    label = "Loop A"
    node [thread_id="loop-a"]
    Plan [label="Plan next step"]
    Implement [timeout="1800s"]
  }
  start [shape=Mdiamond]
  start -> Plan -> Implement [weight=2]
}`);
    assert.deepEqual(diagnostics, []);
    assert.ok(graph);
    assert.equal(graph.attributes.get('goal')?.value, 'ship');
    assert.equal(graph.attributes.get('rankdir')?.value, 'LR');
    const plan = graph.nodes.get('Plan');
    assert.equal(plan?.attributes.get('thread_id')?.value, 'loop-a');
    assert.equal(plan?.attributes.get('timeout')?.value, '900s');
    assert.equal(plan?.attributes.get('timeout')?.origin, 'default');
    assert.deepEqual(plan?.derivedClasses, ['loop-a']);
    assert.equal(graph.nodes.get('Implement')?.attributes.get('timeout')?.value, '1800s');
    assert.equal(graph.nodes.get('start')?.attributes.get('thread_id'), undefined);
    assert.deepEqual(graph.edges.map((e) => [e.from, e.to, e.attributes.get('weight')?.value]), [
      ['start', 'Plan', '2'],
      ['Plan', 'Implement', '2'],
    ]);
  });

  it('keeps multi-line quoted values, resolves escapes, and treats quoted and bare values alike', () => {
    const { graph, diagnostics } = parseDot('digraph G {\n  a [prompt="line one\nline \\"two\\"\\tx", shape="box", max_retries=3]\n  b [shape=box, max_retries="3"]\n}');
    assert.deepEqual(diagnostics, []);
    assert.equal(graph?.nodes.get('a')?.attributes.get('prompt')?.value, 'line one\nline "two"\tx');
    assert.equal(graph?.nodes.get('a')?.attributes.get('max_retries')?.value, graph?.nodes.get('b')?.attributes.get('max_retries')?.value);
  });

  it('records source ranges of nodes, attribute keys and values', () => {
    const text = 'digraph G {\n  work [prompt="x"]\n  work -> done\n}';
    const { graph } = parseDot(text);
    const work = graph?.nodes.get('work');
    assert.equal(work?.idRange.start, text.indexOf('work'), 'ranges in the model are offsets');
    const position = work && parseDot(text).lineIndex.positionAt(work.idRange.start);
    assert.deepEqual([position?.line, position?.character], [1, 2]);
    const prompt = work?.attributes.get('prompt');
    const key = prompt && keySpanOf(prompt);
    const value = prompt && valueSpanOf(prompt);
    assert.equal(text.slice(key?.start, key?.end), 'prompt');
    assert.equal(text.slice(value?.start, value?.end), '"x"');
    assert.equal(work?.references.length, 2);
    const edge = graph?.edges[0];
    assert.equal(text.slice(edge?.toRange.start, edge?.toRange.end), 'done');
  });

  it('reports a syntax error with its location instead of throwing', () => {
    const { graph, diagnostics } = parseDot('digraph G {\n  a -> \n}');
    assert.equal(graph, undefined);
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0]?.rule, 'syntax');
    assert.equal(diagnostics[0]?.range?.start.line, 2);
  });

  it('refuses undirected and strict graphs and warns on conflicting redeclarations', () => {
    assert.equal(parseDot('graph G { a -- b }').diagnostics[0]?.rule, 'graph_kind');
    assert.equal(parseDot('strict digraph G { a -> b }').diagnostics[0]?.rule, 'graph_kind');
    const conflict = parseDot('digraph G { a [prompt="x"]\n a [prompt="y"] }').diagnostics;
    assert.equal(conflict[0]?.rule, 'duplicate_node_conflict');
    assert.equal(conflict[0]?.related?.[0]?.range.start.line, 0);
  });
});

describe('parseDot and Unicode line separators', () => {
  it('keeps U+2028 and U+2029 inside quoted values (ts-graphviz rejects them raw)', () => {
    const { graph, diagnostics } = parseDot('digraph G {\n  a [prompt="one\u2028two\u2029three"]\n}');
    assert.deepEqual(diagnostics, []);
    assert.equal(graph?.nodes.get('a')?.attributes.get('prompt')?.value, 'one\u2028two\u2029three');
  });
});

describe('canonical grammar beyond Graphviz identifiers', () => {
  it('accepts bare qualified keys and bare values with dots and hyphens, keeping every offset', () => {
    const text = 'digraph G {\n  gate [shape=hexagon, human.default_choice=ship, llm_model=gpt-4.1, timeout=5m]\n  gate -> ship\n  a->b\n}';
    const { graph, diagnostics } = parseDot(text);
    assert.deepEqual(diagnostics, []);
    const gate = graph?.nodes.get('gate');
    assert.equal(gate?.attributes.get('human.default_choice')?.value, 'ship');
    assert.equal(gate?.attributes.get('llm_model')?.value, 'gpt-4.1');
    const choice = gate?.attributes.get('human.default_choice');
    const key = choice && keySpanOf(choice);
    assert.equal(text.slice(key?.start, key?.end), 'human.default_choice');
    assert.deepEqual(graph?.edges.map((e) => `${e.from}->${e.to}`), ['gate->ship', 'a->b']);
  });

  it('leaves quoted text alone', () => {
    const { graph } = parseDot('digraph G { a [prompt="\u2C00 x.y-z"] }');
    assert.equal(graph?.nodes.get('a')?.attributes.get('prompt')?.value, '\u2C00 x.y-z');
  });
});
