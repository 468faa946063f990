// The one parser on the DOT it reads natively and on broken text: every error located, the rest still read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { valueSpanOf } from '../../engine/model/graph';
import type { SourceRange, SourceSpan } from '../../engine/model/source';
import { parseDot } from '../../engine/parse/dot-parser';

const located = (text: string) => parseDot(text).diagnostics.map((d) => `${(d.range?.start.line ?? 0) + 1}:${(d.range?.start.character ?? 0) + 1} ${d.rule} ${d.message}`);
const slice = (text: string, span: SourceSpan | undefined) => text.slice(span?.start, span?.end);
const sliceLocated = (text: string, range: SourceRange | undefined) => text.slice(range?.start.offset, range?.end.offset);

describe('one parser: error recovery', () => {
  it('reports every broken statement with its line and column and goes on at the next statement', () => {
    // `e = \n f` is `e=f` (DOT ignores line breaks), so the list after it is what breaks.
    const text = 'digraph G {\n  a -> -> b\n  c [shape=box]\n  d [x=]\n  e = \n  f [prompt="ok"]; g [y 1]\n}';
    assert.deepEqual(located(text), [
      '2:8 syntax DOT syntax error: Expected a node id, "subgraph" or "{" after the edge operator but "->" found.',
      '4:8 syntax DOT syntax error: Expected a value (an id, a number, a "quoted" or <html> string) but "]" found.',
      '6:5 syntax DOT syntax error: Expected a statement (a node, an edge, `key=value`, "node", "edge", "graph" or "subgraph") but "[" found.',
      '6:24 syntax DOT syntax error: Expected "=" after "y" but "1" found.',
    ]);
    assert.equal(parseDot(text).graph, undefined, 'a text with syntax errors has no graph to run');
  });

  it('points a half-typed key at its end and a missing operand at what stands there', () => {
    assert.deepEqual(located('digraph G {\n  a [sha\n  b [shape=box]\n}'), ['2:9 syntax DOT syntax error: Expected "=" after "sha" but "b" found.']);
    assert.deepEqual(located('digraph G {\n  a -> \n}'), ['3:1 syntax DOT syntax error: Expected a node id, "subgraph" or "{" after the edge operator but "}" found.']);
  });

  it('says when a missing closing quote is the likely cause, once, instead of a cascade', () => {
    const text = 'digraph G {\n  a [label="Appr\n  b [x="y"]\n  c -> d [label="z"]\n}\n';
    const diagnostics = located(text);
    assert.equal(diagnostics.length, 1, diagnostics.join('\n'));
    assert.match(diagnostics[0] ?? '', /The string opened at 2:12 runs across lines: is its closing quote missing\?$/);
  });

  it('reports lexical problems: a stray character, an unterminated comment, an unclosed graph', () => {
    assert.deepEqual(located('digraph G { a @ b }'), ['1:15 syntax DOT syntax error: Unexpected character "@".']);
    assert.deepEqual(located('digraph G { a /* open\n'), ['1:15 syntax DOT syntax error: Unterminated comment: `/*` has no `*/`.', '2:1 syntax DOT syntax error: Expected "}" but end of input found.']);
    assert.deepEqual(located('digraph G { a -- b }'), ['1:15 syntax DOT syntax error: In a digraph, edges are written `a -> b`, not `a -- b`.']);
  });
});

describe('one parser: the DOT that matters', () => {
  it('reads comments of all three kinds, semicolons and commas, and concatenated strings', () => {
    const text = '// head\n# directive line\ndigraph G { /* c */\n  a [x=1; y=2, z="p" + "q"\n    + "r"]; b\n  a -> b; # not a comment mid-line is an error? no: only at line start\n}';
    const broken = parseDot(text);
    assert.equal(broken.diagnostics[0]?.rule, 'syntax', '`#` mid-line is not a comment');
    const { graph, diagnostics } = parseDot('// head\n# directive line\ndigraph G { /* c */\n  a [x=1; y=2, z="p" + "q"\n    + "r"]; b\n  a -> b;\n}');
    assert.deepEqual(diagnostics, []);
    const a = graph?.nodes.get('a');
    assert.deepEqual(['x', 'y', 'z'].map((k) => a?.attributes.get(k)?.value), ['1', '2', 'pqr']);
    assert.equal(a?.attributes.get('z')?.quoted, true);
    assert.deepEqual(graph?.edges.map((e) => `${e.from}->${e.to}`), ['a->b']);
  });

  it('scopes node and edge defaults to their subgraph and expands chains through groups and subgraphs', () => {
    const text = `digraph G {
  edge [weight=1]
  subgraph cluster_a {
    node [timeout="5m"]
    edge [weight=2]
    a -> b
  }
  c
  { x y } -> z
  z -> subgraph s { p q } -> c
}`;
    const { graph, diagnostics } = parseDot(text);
    assert.deepEqual(diagnostics, []);
    assert.equal(graph?.nodes.get('a')?.attributes.get('timeout')?.value, '5m');
    assert.equal(graph?.nodes.get('c')?.attributes.get('timeout'), undefined, 'the default ends with its subgraph');
    assert.deepEqual(
      graph?.edges.map((e) => `${e.from}->${e.to}:${e.attributes.get('weight')?.value}`),
      ['a->b:2', 'x->z:1', 'y->z:1', 'z->p:1', 'z->q:1', 'p->c:1', 'q->c:1'],
    );
    assert.deepEqual(graph?.subgraphs.map((s) => s.id), ['cluster_a', 's'], 'a `{ x y }` operand is a group of references, not a subgraph');
    assert.deepEqual(graph?.nodes.get('x')?.declarations, [], 'a reference group declares nothing');
    assert.deepEqual(graph?.nodes.get('p')?.subgraphs, ['s']);
  });

  it('gives each edge the edge defaults in force where it is written (edges without attributes of their own share one map)', () => {
    const { graph } = parseDot('digraph G { a -> b; edge [weight=1]; b -> c; c -> d [label=x]; edge [weight=2]; d -> e; subgraph s { e -> f; edge [weight=3]; f -> g } g -> h }');
    assert.deepEqual(
      graph?.edges.map((e) => `${e.from}->${e.to}:${e.attributes.get('weight')?.value ?? '-'}:${e.attributes.get('label')?.value ?? '-'}`),
      ['a->b:-:-', 'b->c:1:-', 'c->d:1:x', 'd->e:2:-', 'e->f:2:-', 'f->g:3:-', 'g->h:2:-'],
    );
  });

  it('derives a class from a subgraph label written after the nodes, outermost first', () => {
    const { graph } = parseDot('digraph G { subgraph cluster_o { subgraph cluster_i { a; label="Inner" } label="Outer Loop" } }');
    assert.deepEqual(graph?.nodes.get('a')?.derivedClasses, ['outer-loop', 'inner']);
  });

  it('keeps exact ranges: statements end at their last token, attributes at their value, ports are located', () => {
    const text = 'digraph G {\n  a [x=1, y="two"]  ;\n  a:out -> b:in:n [w=3] ;\n  html [label=<<b>bold</b>>]\n}';
    const { graph, diagnostics } = parseDot(text);
    const a = graph?.nodes.get('a');
    assert.equal(slice(text, a?.declarations[0]), 'a [x=1, y="two"]');
    assert.equal(slice(text, a?.attributes.get('x')?.range), 'x=1');
    const y = a?.attributes.get('y');
    assert.equal(slice(text, y && valueSpanOf(y)), '"two"');
    assert.equal(slice(text, graph?.edges[0]?.range), 'a:out -> b:in:n [w=3]');
    assert.equal(slice(text, graph?.edges[0]?.toRange), 'b');
    assert.deepEqual(
      diagnostics.map((d) => [d.rule, sliceLocated(text, d.range)]),
      [
        ['port_ignored', 'out'],
        ['port_ignored', 'in:n'],
        ['html_value', '<<b>bold</b>>'],
      ],
    );
    assert.equal(graph?.nodes.get('html')?.attributes.get('label')?.value, '<b>bold</b>', 'an HTML string is its text between the outer angle brackets');
  });

  it('reads keywords in any case, numerals and escapes', () => {
    const { graph, diagnostics } = parseDot('DiGraph G { NODE [k=-1.5] Edge [j=.5] a [p="say \\"hi\\"\\n"] a -> b }');
    assert.deepEqual(diagnostics, []);
    assert.equal(graph?.nodes.get('a')?.attributes.get('k')?.value, '-1.5');
    assert.equal(graph?.edges[0]?.attributes.get('j')?.value, '.5');
    assert.equal(graph?.nodes.get('a')?.attributes.get('p')?.value, 'say "hi"\n');
  });

  it('refuses a second graph in the file and a file with no graph', () => {
    assert.deepEqual(located('digraph G { a } digraph H { b }'), ['1:17 graph_kind Only one graph per file: this second graph is ignored.']);
    assert.deepEqual(located('// nothing\n'), ['1:1 graph_kind No digraph found: a pipeline is one `digraph name { ... }`.']);
  });
});
