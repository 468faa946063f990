import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDot } from '../../engine/parse/dot-parser';
import { focusNode, neighbourhood } from '../../webview/neighbourhood';

const { graph } = parseDot('digraph g { start [shape=Mdiamond]; start -> a -> b -> c -> d; x -> b; c -> y; b -> e -> f }');
assert.ok(graph);

test('a neighbourhood takes the nearest nodes first, along edges in both directions, up to its bound', () => {
  assert.deepEqual([...neighbourhood(graph, 'b', 4)].sort(), ['a', 'b', 'c', 'x'], 'distance 1 from b: a (in), c (out), x (in), e (out); the bound keeps the first three found');
  assert.deepEqual([...neighbourhood(graph, 'b', 100)].sort(), ['a', 'b', 'c', 'd', 'e', 'f', 'start', 'x', 'y']);
  assert.deepEqual([...neighbourhood(graph, 'f', 3)], ['f', 'e', 'b']);
});

test('the view centres on the requested node when the graph has it, else on the start node', () => {
  assert.equal(focusNode(graph, 'c'), 'c');
  assert.equal(focusNode(graph, 'gone'), 'start');
  assert.equal(focusNode(graph, undefined), 'start');
});
