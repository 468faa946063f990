// A real engine run (scripted LLM, real shell tools, scripted human answer), projected onto
// webview messages: every message is valid by the protocol and the final state matches the trace.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunEvent } from '../../../engine/runtime/events';
import { parseExtensionMessage, type GraphStateMessage } from '../../../host/protocol/webview';
import { RunProjection } from '../../../host/view/run-projection';
import { projectedRun } from '../../webview/engine-run';

test('a real run projects onto valid messages whose final graph state matches the trace', async () => {
  const { events, messages } = await projectedRun();
  for (const message of messages) {
    const parsed = parseExtensionMessage(JSON.parse(JSON.stringify(message)));
    assert.ok(parsed.ok, parsed.ok ? '' : `${parsed.error} in ${JSON.stringify(message)}`);
  }
  const states = messages.filter((m): m is GraphStateMessage => m.type === 'graphState');
  const final = states[states.length - 1];
  assert.ok(final);
  assert.equal(final.runStatus, 'succeeded');
  assert.equal(final.iteration, 1);
  assert.equal(final.activeNode, null);
  assert.deepEqual(final.nodes.work, { status: 'success', visits: 2, iteration: 1, lastAttempt: 1 });
  assert.equal(final.nodes.gate?.visits, 2);
  assert.equal(final.nodes.review?.status, 'success');

  const edgeEvents = events.filter((e): e is Extract<RunEvent, { type: 'edge' }> => e.type === 'edge');
  const loopEdge = edgeEvents.find((e) => e.loopRestart);
  assert.ok(loopEdge, 'the run took the loop_restart edge');
  assert.deepEqual(
    final.takenEdges.map((e) => e.index).sort((a, b) => a - b),
    [...new Set(edgeEvents.map((e) => e.edge.index))].sort((a, b) => a - b),
  );
  assert.equal(final.takenEdges.find((e) => e.index === loopEdge.edge.index)?.traversals, 1);

  const running = states.find((s) => s.activeNode === 'gate');
  assert.equal(running?.nodes.gate?.status, 'running', 'a node is running between its start and end');

  const traced = messages.flatMap((m) => (m.type === 'traceEntries' ? m.entries : []));
  assert.deepEqual(
    traced.map((entry) => entry.node_id),
    events.flatMap((e) => (e.type === 'trace' ? [e.record.node_id] : [])),
  );
  const gate = messages.find((m) => m.type === 'humanGate');
  assert.ok(gate?.type === 'humanGate' && gate.nodeId === 'review' && gate.options.some((o) => o.to === 'done'));
  const closed = messages.find((m) => m.type === 'humanGateClosed');
  assert.ok(closed?.type === 'humanGateClosed' && closed.gateId === gate.gateId);
});

test('pausing changes only the run status, and a new run starts from a clean state', () => {
  const projection = new RunProjection();
  const scope = { id: 'main', kind: 'main' as const, frames: [] };
  projection.apply({ type: 'run:start', runId: 'r', logsRoot: '/tmp/r', graphName: 'g', resumed: false, history: [] });
  projection.apply({ type: 'node:start', scope, nodeId: 'a', iteration: 0, visit: 1 });
  assert.equal(projection.setPaused(true).runStatus, 'paused');
  assert.equal(projection.setPaused(false).runStatus, 'running');
  const sub = { id: 'main>sub:s', kind: 'subpipeline' as const, frames: [{ nodeId: 's' }] };
  assert.deepEqual(projection.apply({ type: 'node:start', scope: sub, nodeId: 'inner', iteration: 0, visit: 1 }), [], 'a sub-pipeline runs another graph');
  const [fresh] = projection.apply({ type: 'run:start', runId: 'r2', logsRoot: '/tmp/r2', graphName: 'g', resumed: false, history: [] });
  assert.ok(fresh?.type === 'graphState');
  assert.deepEqual(fresh.nodes, {});
});

test('a resumed run starts from its history: the trace is replaced by it and the graph shows its visits', () => {
  const projection = new RunProjection();
  const record = (node_id: string, status: 'success' | 'fail', iteration = 0) => ({ iteration, node_id, status, duration_ms: 1, ts: '2026-12-01T00:00:00Z', is_explicit: true, attempt: 1, preferred_label: '' });
  const history = [record('start', 'success'), record('work', 'fail'), record('work', 'success', 1)];
  const [state, trace] = projection.apply({ type: 'run:start', runId: 'r', logsRoot: '/tmp/r', graphName: 'g', resumed: true, history });
  assert.ok(state?.type === 'graphState' && trace?.type === 'traceEntries');
  assert.deepEqual(state.nodes, { start: { status: 'success', visits: 1, iteration: 0, lastAttempt: 1 }, work: { status: 'success', visits: 2, iteration: 1, lastAttempt: 1 } });
  assert.equal(state.iteration, 1);
  assert.deepEqual(trace, { type: 'traceEntries', entries: history, replace: true });
});

test("a resumed run's graph shows the edges its history took", () => {
  const projection = new RunProjection();
  const record = (node_id: string, edge?: { index: number; from: string; to: string }) => ({ iteration: 0, node_id, status: 'success' as const, duration_ms: 1, ts: '2026-12-01T00:00:00Z', is_explicit: true, attempt: 1, preferred_label: '', ...(edge ? { edge } : {}) });
  const history = [record('start', { index: 0, from: 'start', to: 'work' }), record('work', { index: 2, from: 'work', to: 'check' })];
  const [state] = projection.apply({ type: 'run:start', runId: 'r', logsRoot: '/tmp/r', graphName: 'g', resumed: true, history });
  assert.ok(state?.type === 'graphState');
  assert.deepEqual(state.takenEdges, [
    { index: 0, status: 'success', traversals: 1 },
    { index: 2, status: 'success', traversals: 1 },
  ]);
});
