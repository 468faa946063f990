// DAP custom events → graph-view messages (validated by the webview's own checks), answers back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDot } from '../../engine/parse/dot-parser';
import { answerGateArguments, breakpointsOnGraph, messagesForDebugEvent, nodeAtLine } from '../../extension/graph-bridge';
import { parseAnswerGateArguments } from '../../debug-adapter/protocol';
import { parseExtensionMessage } from '../../webview/protocol';

const program = '/ws/review.dot';
const source = `digraph g {
  start [shape=Mdiamond]
  work  [prompt="do it"]
  gate  [shape=hexagon]
  done  [shape=Msquare]
  start -> work -> gate
  gate -> done [label="[Y] Yes"]
  gate -> work [label="[N] No"]
}`;

test('graphState, traceEntry, humanGate and humanGateClosed events become valid graph-view messages', () => {
  const events: Array<[string, unknown]> = [
    ['graphState', { program, logsRoot: '/runs/1', runStatus: 'paused', iteration: 0, nodes: { start: { status: 'success', visits: 1, iteration: 0 } }, takenEdges: [{ index: 0, status: 'success' }], activeNode: 'start', currentEdge: 0 }],
    ['traceEntry', { logsRoot: '/runs/1', record: { iteration: 0, node_id: 'start', status: 'success', duration_ms: 1, ts: '2026-11-29T12:00:00.000Z', is_explicit: true } }],
    ['humanGate', { gateId: 'g1', nodeId: 'gate', threadId: 1, question: 'Ship?', options: [{ key: 'Y', label: '[Y] Yes', to: 'done' }], freeform: false, defaultChoice: 'Y' }],
    ['humanGateClosed', { gateId: 'g1' }],
  ];
  const messages = events.flatMap(([event, body]) => messagesForDebugEvent(event, body, program));
  assert.deepEqual(messages.map((m) => m.type), ['graphState', 'traceEntries', 'humanGate', 'humanGateClosed']);
  for (const message of messages) assert.ok(parseExtensionMessage(message).ok, JSON.stringify(message));
  const graphState = messages[0]!;
  assert.ok(graphState.type === 'graphState');
  assert.equal((graphState as Record<string, unknown>).program, undefined, 'the DAP-only fields stay behind');
});

test('events of another program and unknown events are dropped', () => {
  assert.deepEqual(messagesForDebugEvent('graphState', { program: '/ws/child.dot', runStatus: 'running', iteration: 0, nodes: {}, takenEdges: [] }, program), []);
  assert.deepEqual(messagesForDebugEvent('progressStart', {}, program), []);
});

test('a panel answer becomes answerGate arguments the adapter accepts', () => {
  for (const answer of [{ type: 'option', key: 'Y' } as const, { type: 'freeform', text: 'looks good' } as const, { type: 'option', key: 'Y', attachments: ['/ws/notes.md'] } as const]) {
    const args = answerGateArguments('g1', answer);
    const parsed = parseAnswerGateArguments(args);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value, args);
  }
  assert.deepEqual(answerGateArguments('g1', { type: 'freeform', text: 'see', attachments: ['/ws/a.md'] }).answer, { kind: 'freeform', text: 'see', attachments: ['/ws/a.md'] });
  assert.equal(parseAnswerGateArguments({ gateId: 'g1', answer: { kind: 'option', key: 'Y', attachments: ['relative.md'] } }).ok, false);
});

test('breakpoint lines map to the nodes and edges the graph view marks; a stopped frame line to its node', () => {
  const graph = parseDot(source, {}).graph!;
  assert.deepEqual(breakpointsOnGraph(graph, [2, 5, 6, 0]), { nodes: ['work'], edges: [0, 1, 2] });
  assert.equal(nodeAtLine(graph, 3), 'gate');
  assert.equal(nodeAtLine(graph, 5), undefined);
});
