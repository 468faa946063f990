import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { parseDot } from '../../engine/parse/dot-parser';
import { layoutSvg } from '../../webview/graphviz';
import { quote } from '../../engine/model/dot-text';
import { buildRenderDot } from '../../engine/model/render-dot';

/**
 * The Graphviz builds the render DOT must lay out with: the WASM build the graph view ships (from
 * npm, always there) and native `dot`, whose tests say they were skipped where it is not installed.
 */
const graphvizBuilds = [
  { name: 'WASM Graphviz', skip: false, svg: (text: string) => layoutSvg(render(text).dot, 'dot') },
  { name: 'native dot', skip: spawnSync('dot', ['-V']).error ? 'Graphviz (dot) is not installed' : false, svg: nativeSvg },
] as const;

/** The render DOT of `text`, laid out by native Graphviz. */
async function nativeSvg(text: string): Promise<string> {
  const svg = spawnSync('dot', ['-Tsvg'], { input: render(text).dot, encoding: 'utf8' });
  assert.equal(svg.status, 0, svg.stderr);
  return svg.stdout;
}

function render(text: string) {
  const { graph, lineIndex } = parseDot(text);
  assert.ok(graph);
  return { ...buildRenderDot(graph), lineIndex };
}

test('each node and edge gets a stable id mapped to its source range', () => {
  const text = 'digraph g {\n  a [label="A"]\n  b\n  a -> b -> a [label="again"]\n}\n';
  const { dot, elements, lineIndex } = render(text);
  assert.match(dot, /"a" \[id="node:a", label="A", class="handler-codergen"\]/);
  assert.match(dot, /"b" -> "a" \[id="edge:1", label="again"\]/);
  const a = elements.get('node:a');
  assert.equal(a?.kind, 'node');
  assert.equal(a && lineIndex.positionAt(a.range.start).line, 1);
  const edge = elements.get('edge:1');
  assert.ok(edge?.kind === 'edge' && edge.edgeIndex === 1 && lineIndex.positionAt(edge.range.start).line === 3);
});

test('prompts, commands, dotted attributes and unsafe values are dropped; shapes and layout hints are kept', () => {
  const { dot } = render(`digraph g {
    graph [rankdir=LR, goal="x", "tool_hooks.pre"="rm -rf /"]
    gate [shape=hexagon, prompt="${'long '.repeat(500)}", "human.freeform"=true, tool_command="echo hi", URL="javascript:alert(1)", width="1\\" onload=x"]
    start [shape=Mdiamond]
    start -> gate [condition="outcome=success", weight=3]
  }`);
  assert.match(dot, /rankdir="LR"/);
  assert.match(dot, /"gate" \[id="node:gate", label="gate", class="handler-wait_human", shape="hexagon"\]/);
  assert.match(dot, /\[id="edge:0", label="\[outcome=success\]"\]/, 'a condition stands in for a missing label');
  for (const dropped of ['prompt', 'human.freeform', 'tool_command', 'URL', 'javascript', 'tool_hooks', 'goal', 'weight', 'onload']) assert.ok(!dot.includes(dropped), `${dropped} must not reach Graphviz`);
});

test('labels are escaped so Graphviz shows them literally, and long labels are truncated', () => {
  assert.equal(quote('say "hi"\\N\nnext'), '"say \\"hi\\"\\\\N\\nnext"');
  const { dot } = render(`digraph g { a [label="${'x'.repeat(200)}"] }`);
  assert.match(dot, new RegExp(`label="${'x'.repeat(79)}…"`));
});

for (const { name, skip, svg: layout } of graphvizBuilds) {
  test(`the render DOT lays out with ${name} and keeps the ids in the SVG`, { skip }, async () => {
    const svg = await layout('digraph g { start [shape=Mdiamond, label="<b>\\"quoted\\"</b>"]; exit [shape=Msquare]; start -> exit [label="a\\\\Nb"] }');
    assert.match(svg, /<g id="node:start" class="node handler&#45;start">/);
    assert.match(svg, /<g id="edge:0" class="edge">/);
    assert.match(svg, />&lt;b&gt;&quot;quoted&quot;&lt;\/b&gt;</);
    assert.match(svg, />a\\Nb</, 'an escaped \\N stays text instead of becoming the node name');
  });
}

test('subgraphs named cluster… become nested boxes with their labels; other subgraphs are not drawn', () => {
  const { dot } = render(`digraph g {
    start [shape=Mdiamond]
    subgraph cluster_build {
      label="Build \\"all\\""
      compile
      subgraph cluster_checks { label="Checks"; lint; test }
    }
    subgraph plain { node [shape=box]; review }
    start -> compile -> lint -> test -> review
  }`);
  const lines = dot.split('\n').map((line) => line.trim());
  const at = (prefix: string) => lines.findIndex((line) => line.startsWith(prefix));
  assert.ok(at('subgraph "cluster_build" {') < at('"compile"'));
  assert.ok(at('"compile"') < at('subgraph "cluster_checks" {'));
  assert.ok(at('subgraph "cluster_checks" {') < at('"lint"') && at('"lint"') < at('"test"'));
  assert.ok(lines.includes('graph [id="cluster:cluster_build", label="Build \\"all\\""];'));
  assert.ok(lines.includes('graph [id="cluster:cluster_checks", label="Checks"];'));
  assert.ok(!dot.includes('plain'), 'a subgraph that is not a cluster only scopes defaults');
  assert.ok(at('"review"') < at('subgraph "cluster_build" {'), 'nodes outside every cluster come first');
});

for (const { name, skip, svg: layout } of graphvizBuilds) {
  test(`clusters lay out with ${name} as boxes carrying their ids`, { skip }, async () => {
    const svg = await layout('digraph g { subgraph cluster_a { label="A"; x; subgraph cluster_b { y } } z; x -> y -> z }');
    assert.match(svg, /<g id="cluster:cluster_a" class="cluster">/);
    assert.match(svg, /<g id="cluster:cluster_b" class="cluster">/);
    assert.equal(svg.match(/>A<\/text>/g)?.length, 1, 'the inner cluster does not repeat its parent label');
  });
}

test('a shown subset draws only its nodes, the edges among them and the clusters holding them; its edge nodes are marked', () => {
  const { graph } = parseDot(`digraph g {
    subgraph cluster_far { label="Far"; x; y }
    subgraph cluster_near { label="Near"; a; b }
    a -> b -> c -> x -> y
  }`);
  assert.ok(graph);
  const { dot, elements } = buildRenderDot(graph, new Set(['a', 'b', 'c']));
  assert.deepEqual([...elements.keys()].sort(), ['edge:0', 'edge:1', 'node:a', 'node:b', 'node:c']);
  assert.match(dot, /"c" \[id="node:c", label="c", class="handler-codergen view-boundary"\]/, 'c has an edge to x, which is not shown');
  assert.match(dot, /"b" \[id="node:b", label="b", class="handler-codergen"\]/);
  assert.match(dot, /cluster_near/);
  assert.ok(!dot.includes('cluster_far') && !dot.includes('"x"'), 'nothing of the part not shown reaches Graphviz');
});
