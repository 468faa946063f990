// Where breakpoint lines bind on a parsed pipeline: the graph view's marks and a stopped frame's node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDot } from '../../engine/parse/dot-parser';
import { breakpointsOnGraph } from '../../host/break-targets';
import { reviewPipeline } from '../fixtures/review-pipeline';

test('breakpoint lines map to the nodes and edges the graph view marks; a stopped frame line to its node', () => {
  const { graph, lineIndex } = parseDot(reviewPipeline, {});
  assert.deepEqual(breakpointsOnGraph(graph!, lineIndex, [2, 5, 6, 0]), { nodes: ['work'], edges: [0, 1, 2] });
  assert.deepEqual(breakpointsOnGraph(graph!, lineIndex, [3]).nodes, ['gate']);
  assert.deepEqual(breakpointsOnGraph(graph!, lineIndex, [5]).nodes, []);
});
