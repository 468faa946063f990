import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { attributeTable } from '../../engine/model/attributes';
import type { Attribute, Graph, GraphEdge, GraphNode } from '../../engine/model/graph';
import { printDot } from '../../engine/model/print-dot';
import { parseDot } from '../../engine/parse/dot-parser';
import { preparePipeline } from '../../engine/prepare';

const root = path.resolve(import.meta.dirname, '../..');

function realPipelines(): string[] {
  const dirs = [path.join(root, 'examples'), ...fs.readdirSync(path.join(root, '../shared/conformance/cases')).map((c) => path.join(root, '../shared/conformance/cases', c))];
  return dirs.filter((dir) => fs.existsSync(dir)).flatMap((dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.dot')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')));
}

/** Runs the whole front end in lint mode and checks every range lies inside the text. */
function lintNeverThrows(text: string): void {
  const prepared = preparePipeline(text, { mode: 'lint', fileExists: () => false });
  for (const d of prepared.diagnostics) {
    assert.equal(typeof d.message, 'string');
    if (d.range) assert.ok(d.range.start.offset >= 0 && d.range.start.offset <= d.range.end.offset && d.range.end.offset <= text.length, `${d.rule} range out of bounds`);
    for (const edit of d.fix?.edits ?? []) assert.ok(edit.range.end.offset <= text.length);
  }
}

const dotAlphabet = fc.constantFrom(...'digraph{}[]=;,->"\\\n\t #/*abcxyz_019.:&|!<>'.split(''), 'digraph ', 'start', 'shape=', 'Mdiamond', 'condition="', 'outcome=', '->', '/*', '*/', '//', '\r\n');

describe('fuzzing the front end', () => {
  it('arbitrary text never throws out of parseDot or lint', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        parseDot(text);
        lintNeverThrows(text);
      }),
      { numRuns: 300 },
    );
  });

  it('DOT-flavoured token soup never throws', () => {
    fc.assert(
      fc.property(fc.array(dotAlphabet, { maxLength: 120 }), (tokens) => lintNeverThrows(`digraph G {${tokens.join('')}}`)),
      { numRuns: 400 },
    );
  });

  it('an edge into a subgraph reaches the node where the subgraph writes it, not where it was declared (found by the mutation below)', () => {
    const text = `digraph t {
  start [shape=Mdiamond]
  done [shape=Msquare]
  check [shape=parallelogram, tool_command="true"]
  start -> write -> check
  check ->{ done [condition="outcome=success"]
  check -> write [condition="outcome=fail"]
}
`;
    lintNeverThrows(text);
    const closed = `${text}}\n`;
    lintNeverThrows(closed);
    const edge = parseDot(closed).graph?.edges.find((candidate) => candidate.from === 'check' && candidate.to === 'done');
    assert.equal(edge && closed.slice(edge.toRange.start, edge.toRange.end), 'done');
    assert.ok(edge && edge.toRange.start > edge.fromRange.end, 'the head is the `done` inside the braces');
  });

  it('mutated real pipelines never throw', () => {
    const sources = realPipelines();
    assert.ok(sources.length > 10);
    const mutation = fc.record({
      source: fc.constantFrom(...sources),
      edits: fc.array(fc.record({ at: fc.nat(), length: fc.nat({ max: 12 }), insert: fc.oneof(fc.string({ maxLength: 8 }), dotAlphabet) }), { minLength: 1, maxLength: 5 }),
    });
    fc.assert(
      fc.property(mutation, ({ source, edits }) => {
        let text = source;
        for (const edit of edits) {
          const at = edit.at % (text.length + 1);
          text = text.slice(0, at) + edit.insert + text.slice(at + edit.length);
        }
        lintNeverThrows(text);
      }),
      { numRuns: 400 },
    );
  });
});

describe('fuzzing the quick fixes', () => {
  it('applying any fix to a typo-mutated real pipeline keeps it parseable and removes that diagnostic', () => {
    const sources = realPipelines();
    const typo = fc.record({ source: fc.constantFrom(...sources), at: fc.nat(), kind: fc.constantFrom('drop', 'swap', 'double') });
    let fixesApplied = 0;
    fc.assert(
      fc.property(typo, ({ source, at, kind }) => {
        const i = at % Math.max(1, source.length - 1);
        const text = kind === 'drop' ? source.slice(0, i) + source.slice(i + 1) : kind === 'swap' ? source.slice(0, i) + source.slice(i + 1, i + 2) + source.slice(i, i + 1) + source.slice(i + 2) : source.slice(0, i + 1) + source.slice(i);
        const before = preparePipeline(text, { mode: 'lint', fileExists: () => true });
        if (!before.graph) return;
        for (const diagnostic of before.diagnostics) {
          if (!diagnostic.fix) continue;
          const edits = [...diagnostic.fix.edits].sort((a, b) => b.range.start.offset - a.range.start.offset);
          let repaired = text;
          for (const edit of edits) repaired = repaired.slice(0, edit.range.start.offset) + edit.newText + repaired.slice(edit.range.end.offset);
          const after = preparePipeline(repaired, { mode: 'lint', fileExists: () => true });
          assert.ok(after.graph, `fix "${diagnostic.fix.title}" broke the syntax:\n${repaired}`);
          const same = after.diagnostics.filter((d) => d.rule === diagnostic.rule && d.range?.start.offset === diagnostic.range?.start.offset && d.message === diagnostic.message);
          assert.deepEqual(same.map((d) => d.message), [], `fix "${diagnostic.fix.title}" did not remove its diagnostic`);
          fixesApplied++;
        }
      }),
      { numRuns: 500 },
    );
    assert.ok(fixesApplied > 0, 'no mutation produced a fixable diagnostic');
  });
});

// ---- round trip: print(g) parses back to g ----

const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
// Quoted ids are kept as written by the parser (no escape processing), so `"` and `\\` are left out.
const nodeId = fc.oneof({ weight: 4, arbitrary: identifier }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 6 }).filter((s) => /^[ -~]+$/.test(s) && !/["\\]/.test(s)) });
const attributeKey = fc.oneof(fc.constantFrom(...attributeTable.map((spec) => spec.name)), identifier);
// Private-use U+E000/U+E001 are the parser's line-break stand-ins, and DOT strings cannot hold a raw
// CR faithfully (it is a line break); everything else must survive.
const attributeValue = fc.string({ unit: 'grapheme', maxLength: 24 }).filter((s) => !/[\uE000-\uE003\r]/.test(s));
const attributes = fc.dictionary(attributeKey, attributeValue, { maxKeys: 4 });

interface Model {
  readonly name: string;
  readonly graph: Record<string, string>;
  readonly nodes: [string, Record<string, string>][];
  readonly edges: [number, number, Record<string, string>][];
}

const model: fc.Arbitrary<Model> = fc
  .record({
    name: identifier,
    graph: attributes,
    nodes: fc.uniqueArray(fc.tuple(nodeId, attributes), { minLength: 1, maxLength: 8, selector: ([id]) => id }),
    edges: fc.array(fc.tuple(fc.nat(), fc.nat(), attributes), { maxLength: 10 }),
  })
  .map((m) => ({ ...m, edges: m.edges.map(([a, b, attrs]) => [a % m.nodes.length, b % m.nodes.length, attrs] as [number, number, Record<string, string>]) }));

const nowhere = { start: 0, end: 0 };
const toAttributes = (record: Record<string, string>) =>
  new Map(Object.entries(record).map(([key, value]): [string, Attribute] => [key, { key, value, quoted: true, origin: 'explicit' }]));

function toGraph(m: Model): Graph {
  const nodes = new Map<string, GraphNode>(
    m.nodes.map(([id, attrs]) => [id, { id, attributes: toAttributes(attrs), idRange: nowhere, declarations: [], references: [], derivedClasses: [], subgraphs: [] }]),
  );
  const edges: GraphEdge[] = m.edges.map(([a, b, attrs], index) => ({
    index,
    from: m.nodes[a]?.[0] as string,
    to: m.nodes[b]?.[0] as string,
    attributes: toAttributes(attrs),
    range: nowhere,
    fromRange: nowhere,
    toRange: nowhere,
  }));
  return { name: m.name, attributes: toAttributes(m.graph), nodes, edges, subgraphs: [], range: nowhere };
}

const values = (attrs: ReadonlyMap<string, Attribute>) => Object.fromEntries([...attrs].map(([key, a]) => [key, a.value]));

describe('printDot round trip', () => {
  it('parse(print(g)) has the same nodes, edges and attribute values', () => {
    fc.assert(
      fc.property(model, (m) => {
        const graph = toGraph(m);
        const text = printDot(graph);
        const parsed = parseDot(text);
        assert.deepEqual(parsed.diagnostics.filter((d) => d.severity === 'error'), [], text);
        const back = parsed.graph as Graph;
        assert.equal(back.name, graph.name);
        assert.deepEqual(values(back.attributes), values(graph.attributes));
        assert.deepEqual([...back.nodes.keys()], [...graph.nodes.keys()]);
        for (const [id, node] of graph.nodes) assert.deepEqual(values(back.nodes.get(id)?.attributes ?? new Map()), values(node.attributes), `node ${id}`);
        assert.deepEqual(
          back.edges.map((e) => [e.from, e.to, values(e.attributes)]),
          graph.edges.map((e) => [e.from, e.to, values(e.attributes)]),
        );
        assert.equal(printDot(back), text);
      }),
      { numRuns: 300 },
    );
  });

  it('real pipelines print to text that parses to the same graph', () => {
    for (const source of realPipelines()) {
      const first = parseDot(source).graph;
      if (!first) continue;
      const printed = printDot(first);
      const again = parseDot(printed).graph as Graph;
      assert.equal(printDot(again), printed);
    }
  });
});
