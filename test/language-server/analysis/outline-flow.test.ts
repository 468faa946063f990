import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { carryFlow, nodesNamed, outlineFlow } from '../../../language-server/analysis/outline-flow';
import { updateOutline } from '../../../language-server/syntax/incremental-outline';
import type { Outline } from '../../../language-server/syntax/outline';
import { buildOutline } from '../../../language-server/syntax/outline';

const text = 'digraph p {\n  a [shape=parallelogram, prompt="say hi", outputs="x"]\n  b [shape=box]\n  a -> b [label="go"]\n}\n';

/** `insert` typed at `needle`, the next outline updated from `previous`, and the flow carried if it can be. */
function typed(previous: Outline, needle: string, insert: string): Outline {
  const at = previous.text.indexOf(needle);
  const next = updateOutline(previous, { start: at, oldEnd: at, newEnd: at + insert.length }, previous.text.slice(0, at) + insert + previous.text.slice(at));
  carryFlow(previous, next);
  return next;
}

describe('outline flow', () => {
  it('is carried over an edit that changes none of it, and read again after one that does', () => {
    const first = buildOutline(text);
    const flow = outlineFlow(first);
    assert.deepEqual([...flow.nodes.keys()], ['a', 'b']);
    assert.deepEqual(flow.edges, [{ from: 'a', to: 'b', label: 'go' }]);

    const prompt = typed(first, 'hi"', 'there, ');
    assert.equal(outlineFlow(prompt), flow, 'a prompt\'s words are not part of it');

    const outputs = typed(prompt, 'x"', 'y,');
    assert.notEqual(outlineFlow(outputs), flow);
    assert.equal(outlineFlow(outputs).nodes.get('a')?.attributes.get('outputs')?.value, 'y,x');

    const node = typed(outputs, '  a -> b', '  c\n');
    assert.deepEqual(outlineFlow(node).nodeIds, ['a', 'b', 'c']);
  });

  it('gives nodes the node defaults in scope and the classes of their subgraphs, and is read again when a scope changes', () => {
    const scoped = 'digraph p {\n  subgraph cluster_s {\n    label="Team S"\n    node [shape=parallelogram]\n    x\n    y\n  }\n  z\n  x -> y -> z\n}\n';
    const first = buildOutline(scoped);
    const flow = outlineFlow(first);
    const shape = (outline: Outline, id: string) => outlineFlow(outline).nodes.get(id)?.attributes.get('shape')?.value;
    assert.deepEqual([shape(first, 'x'), shape(first, 'y'), shape(first, 'z')], ['parallelogram', 'parallelogram', undefined]);
    assert.deepEqual(flow.classes, ['team-s']);

    // The subgraph now closes before `y`: the same statements, only their scopes changed, and the flow with them.
    const at = scoped.indexOf('    y\n');
    const old = '    y\n  }\n';
    const moved = updateOutline(first, { start: at, oldEnd: at + old.length, newEnd: at + old.length }, scoped.replace(old, '  }\n    y\n'));
    carryFlow(first, moved);
    assert.notEqual(outlineFlow(moved), flow);
    assert.deepEqual([shape(moved, 'x'), shape(moved, 'y')], ['parallelogram', undefined]);
  });

  it('carries the nodes looked up without a flow over an edit that changes none of them, and looks again after one that does', () => {
    const first = buildOutline(text);
    const [a] = nodesNamed(first, ['a']);
    assert.equal(a?.attributes.get('shape')?.value, 'parallelogram');

    const prompt = typed(first, 'hi"', 'there, ');
    assert.equal(nodesNamed(prompt, ['a'])[0], a, 'a prompt\'s words do not change the node');
    assert.deepEqual(nodesNamed(prompt, ['b', 'a']).map((node) => node.attributes.get('shape')?.value), ['box', 'parallelogram'], 'a node not asked about before is read');

    const shape = typed(prompt, 'parallelogram', 'box, shape=');
    assert.notEqual(nodesNamed(shape, ['a'])[0], a);
    assert.equal(nodesNamed(shape, ['a'])[0]?.attributes.get('shape')?.value, 'parallelogram', 'the later entry wins');
    const later = typed(shape, '  a -> b', '  a [shape=diamond]\n');
    assert.equal(nodesNamed(later, ['a'])[0]?.attributes.get('shape')?.value, 'diamond', 'a later statement naming the node sets it');
  });

  it('looks nodes up as the flow reads them, on random statements with defaults and subgraphs', () => {
    const id = fc.constantFrom('a', 'b', 'c', '"a"', '"d e"');
    const entries = fc.array(fc.tuple(fc.constantFrom('shape', 'outputs', 'label', 'timeout'), fc.constantFrom('box', 'diamond', '"x"')), { maxLength: 2 }).map((list) => list.map(([key, value]) => `${key}=${value}`).join(', '));
    const statement = fc.oneof(
      fc.tuple(id, entries).map(([node, list]) => `${node} [${list}]`),
      entries.map((list) => `node [${list}]`),
      fc.tuple(id, id).map(([from, to]) => `${from} -> ${to}`),
      fc.constantFrom('subgraph cluster_s {', 'subgraph {', '}'),
    );
    fc.assert(
      fc.property(fc.array(statement, { maxLength: 14 }), fc.subarray(['a', 'b', 'c', 'd e']), (statements, ids) => {
        const outline = buildOutline(`digraph p {\n${statements.join('\n')}\n}\n`);
        const looked = nodesNamed(outline, ids).map((node) => [node.id, [...node.attributes]]);
        const { nodes } = outlineFlow(outline);
        assert.deepEqual(looked, ids.map((node) => [node, [...(nodes.get(node)?.attributes ?? [])]]));
      }),
      { numRuns: 400 },
    );
  });
});
