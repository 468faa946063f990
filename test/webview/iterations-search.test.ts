import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDot } from '../../engine/parse/dot-parser';
import { summariseIterations } from '../../webview/iterations';
import type { TraceEntry } from '../../host/protocol/webview';
import { findMatches } from '../../webview/search';

const entry = (iteration: number, node_id: string, status: TraceEntry['status'], duration_ms: number): TraceEntry => ({ iteration, node_id, status, duration_ms, ts: 't', is_explicit: true });

test('iterations summarise duration, unsuccessful outcomes and the last verdict of each gate', () => {
  const entries = [entry(0, 'work', 'success', 10), entry(0, 'gate', 'fail', 5), entry(1, 'work', 'retry', 3), entry(1, 'work', 'success', 4), entry(1, 'gate', 'success', 5)];
  const [first, second] = summariseIterations(entries, new Set(['gate']));
  assert.deepEqual({ ...first, entries: first?.entries.length }, { iteration: 0, entries: 2, durationMs: 15, unsuccessful: 1, gates: [{ nodeId: 'gate', status: 'fail' }] });
  assert.deepEqual({ ...second, entries: second?.entries.length }, { iteration: 1, entries: 3, durationMs: 12, unsuccessful: 1, gates: [{ nodeId: 'gate', status: 'success' }] });
});

test('without goal gates, the last entry of an iteration stands for its verdict', () => {
  const [only] = summariseIterations([entry(3, 'a', 'success', 1), entry(3, 'b', 'partial_success', 1)], new Set());
  assert.deepEqual(only?.gates, [{ nodeId: 'b', status: 'partial_success' }]);
});

test('search matches ids, any attribute value, key=value pairs and edge labels', () => {
  const { graph } = parseDot('digraph g { plan [prompt="Write the plan"]; test [tool_command="pytest -q"]; plan -> test [label="next"] }');
  assert.ok(graph);
  assert.deepEqual(findMatches(graph, 'PLAN'), ['node:plan']);
  assert.deepEqual(findMatches(graph, 'tool_command=pytest'), ['node:test']);
  assert.deepEqual(findMatches(graph, 'next'), ['edge:0']);
  assert.deepEqual(findMatches(graph, '  '), []);
});
