// DAP custom events → graph-view messages (validated by the webview's own checks), answers back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messagesForDebugEvent } from '../../extension/graph-bridge';
import { parseAnswerGateArguments } from '../../host/protocol/debug';
import { parseExtensionMessage, parseWebviewMessage } from '../../host/protocol/webview';

const program = '/ws/review.dot';

test('graphState, traceHistory, traceEntry, humanGate and humanGateClosed events become valid graph-view messages', () => {
  const events: Array<[string, unknown]> = [
    ['graphState', { program, logsRoot: '/runs/1', runStatus: 'paused', iteration: 0, nodes: { start: { status: 'success', visits: 1, iteration: 0 } }, takenEdges: [{ index: 0, status: 'success' }], activeNode: 'start', currentEdge: 0 }],
    ['traceHistory', { logsRoot: '/runs/1', records: [{ iteration: 0, node_id: 'start', status: 'success', duration_ms: 1, ts: '2026-11-29T12:00:00.000Z', is_explicit: true }] }],
    ['traceEntry', { logsRoot: '/runs/1', record: { iteration: 0, node_id: 'start', status: 'success', duration_ms: 1, ts: '2026-11-29T12:00:00.000Z', is_explicit: true } }],
    ['humanGate', { gateId: 'g1', nodeId: 'gate', threadId: 1, question: 'Ship?', options: [{ key: 'Y', label: '[Y] Yes', to: 'done' }], freeform: false, defaultChoice: 'Y' }],
    ['humanGateClosed', { gateId: 'g1' }],
  ];
  const messages = events.flatMap(([event, body]) => messagesForDebugEvent(event, body, program));
  assert.deepEqual(messages.map((m) => m.type), ['graphState', 'traceEntries', 'traceEntries', 'humanGate', 'humanGateClosed']);
  assert.deepEqual(messages.slice(1, 3).map((m) => m.type === 'traceEntries' && m.replace), [true, false], 'the history starts the trace over; live entries append');
  for (const message of messages) assert.ok(parseExtensionMessage(message).ok, JSON.stringify(message));
  const graphState = messages[0]!;
  assert.ok(graphState.type === 'graphState');
  assert.equal((graphState as Record<string, unknown>).program, undefined, 'the DAP-only fields stay behind');
});

test('events of another program and unknown events are dropped', () => {
  assert.deepEqual(messagesForDebugEvent('graphState', { program: '/ws/child.dot', runStatus: 'running', iteration: 0, nodes: {}, takenEdges: [] }, program), []);
  assert.deepEqual(messagesForDebugEvent('progressStart', {}, program), []);
});

test('one answer shape end to end: what the graph view sends, the answerGate request takes unchanged', () => {
  for (const answer of [{ kind: 'option', choice: 'Y' }, { kind: 'freeform', text: 'looks good' }, { kind: 'skipped' }, { kind: 'option', choice: 'Y', attachments: ['/ws/notes.md'] }]) {
    const fromView = parseWebviewMessage({ type: 'answerGate', gateId: 'g1', answer });
    assert.ok(fromView.ok && fromView.value.type === 'answerGate', JSON.stringify(answer));
    assert.deepEqual(parseAnswerGateArguments({ gateId: fromView.value.gateId, answer: fromView.value.answer }), { ok: true, value: { gateId: 'g1', answer } });
  }
  assert.equal(parseAnswerGateArguments({ gateId: 'g1', answer: { kind: 'option', choice: 'Y', attachments: ['relative.md'] } }).ok, false);
});
