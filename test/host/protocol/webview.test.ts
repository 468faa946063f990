import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExtensionMessage, parseWebviewMessage } from '../../../host/protocol/webview';

test('valid extension messages pass and unknown fields are dropped', () => {
  const result = parseExtensionMessage({
    type: 'graphState',
    runStatus: 'paused',
    iteration: 2,
    activeNode: 'plan',
    currentEdge: null,
    nodes: { plan: { status: 'retry', visits: 2, iteration: 2, lastAttempt: 3, injected: '<b>' } },
    takenEdges: [{ index: 0, status: 'success' }],
    extra: true,
  });
  assert.ok(result.ok);
  assert.deepEqual(JSON.parse(JSON.stringify(result.value)), {
    type: 'graphState',
    runStatus: 'paused',
    iteration: 2,
    activeNode: 'plan',
    currentEdge: null,
    nodes: { plan: { status: 'retry', visits: 2, iteration: 2, lastAttempt: 3 } },
    takenEdges: [{ index: 0, status: 'success' }],
  });
});

test('every extension message type has a validator that accepts its documented shape', () => {
  const messages = [
    { type: 'document', uri: 'file:///a.dot', version: 1, text: 'digraph {}' },
    { type: 'traceEntries', replace: false, entries: [{ iteration: 0, node_id: 'a', status: 'success', duration_ms: 1.5, ts: 't', is_explicit: true, preferred_label: 'go', attempt: 1, input_tokens: 3, output_tokens: 'unknown', cost_usd: 0.1, llm_requests: 2 }] },
    { type: 'visitArtifacts', iteration: 0, nodeId: 'a', prompt: 'p' },
    { type: 'humanGate', gateId: 'g', question: 'q', freeform: false, options: [{ key: 'Y', label: 'Yes', to: 'b' }], defaultChoice: 'Y', timeoutMs: 30000 },
    { type: 'traceEntries', replace: true, entries: [{ iteration: 1, node_id: 'b', status: 'fail', duration_ms: 2, ts: 't', is_explicit: false, preferred_label: '', attempt: 3, scope: 'main>branch:fan:b1', failure_reason: 'exit 1', forced_edge: { from: 'b', to: 'c' } }] },
    { type: 'humanGateClosed', gateId: 'g' },
    { type: 'humanGate', gateId: 'c', question: 'Publish?', freeform: false, questionType: 'confirmation', options: [{ key: 'Y', label: 'Yes', to: 'notes' }, { key: 'N', label: 'No', to: '' }] },
    { type: 'gateAttachments', gateId: 'g', files: ['/ws/notes.md'] },
    { type: 'selectNode', nodeId: null },
    { type: 'breakpoints', nodes: ['a'], edges: [0, 3] },
    { type: 'settings', layoutEngine: 'neato' },
  ];
  for (const message of messages) assert.deepEqual(parseExtensionMessage(message), { ok: true, value: message });
});

test('malformed messages are rejected with the path of the first problem', () => {
  const cases: Array<[unknown, RegExp]> = [
    [null, /^message: expected an object, got null/],
    [[], /expected an object, got an array/],
    [{ type: 'nope' }, /^type: expected one of document, graphState/],
    [{ type: 'document', uri: 'u', version: 1.5, text: '' }, /^version: expected a non-negative integer, got number 1.5/],
    [{ type: 'graphState', runStatus: 'running', iteration: 0, nodes: { a: { status: 'done', visits: 1, iteration: 0 } }, takenEdges: [] }, /^nodes\.a\.status: expected one of success, partial_success, retry, fail, skipped, running/],
    [{ type: 'graphState', runStatus: 'running', iteration: 0, nodes: {}, takenEdges: [{ index: -1, status: 'success' }] }, /^takenEdges\[0\]\.index/],
    [{ type: 'traceEntries', replace: true, entries: [{ iteration: 0, node_id: 'a', status: 'success', duration_ms: Number.NaN, ts: 't', is_explicit: true }] }, /^entries\[0\]\.duration_ms: expected a finite number/],
    [{ type: 'humanGate', gateId: 'g', question: 'q', freeform: false, options: [{ key: 'Y', label: 'Yes' }] }, /^options\[0\]\.to: expected a string, got undefined/],
    [{ type: 'settings', layoutEngine: 'nop' }, /^layoutEngine: expected one of dot/],
    [{ type: 'humanGate', gateId: 'g', question: 'q', freeform: false, questionType: 'maybe', options: [{ key: 'Y', label: 'Yes', to: 'b' }] }, /^questionType: expected one of multiple_choice, yes_no, confirmation/],
  ];
  for (const [message, error] of cases) {
    const result = parseExtensionMessage(message);
    assert.equal(result.ok, false, JSON.stringify(message));
    if (!result.ok) assert.match(result.error, error);
  }
});

test('webview messages validate on the extension side, including nested unions', () => {
  const range = { start: { line: 1, character: 2 }, end: { line: 1, character: 6 } };
  const good = [
    { type: 'ready' },
    { type: 'revealNode', uri: 'u', nodeId: 'a', range },
    { type: 'toggleBreakpoint', uri: 'u', target: { kind: 'edge', edgeIndex: 2, range } },
    { type: 'answerGate', gateId: 'g', answer: { kind: 'freeform', text: 'hello' } },
    { type: 'answerGate', gateId: 'g', answer: { kind: 'option', choice: 'A', attachments: ['/ws/notes.md'] } },
    { type: 'pickAttachments', gateId: 'g' },
    { type: 'exportImage', format: 'png', data: 'data:image/png;base64,AA==' },
  ];
  for (const message of good) assert.deepEqual(parseWebviewMessage(message), { ok: true, value: message });
  const bad = parseWebviewMessage({ type: 'toggleBreakpoint', uri: 'u', target: { kind: 'graph', range } });
  assert.ok(!bad.ok && /target\.kind: expected one of node, edge/.test(bad.error));
  const badAnswer = parseWebviewMessage({ type: 'answerGate', gateId: 'g', answer: { kind: 'option' } });
  assert.ok(!badAnswer.ok && /answer\.choice: expected a string/.test(badAnswer.error));
  const badAttachments = parseWebviewMessage({ type: 'answerGate', gateId: 'g', answer: { kind: 'option', choice: 'A', attachments: 'notes.md' } });
  assert.equal(badAttachments.ok, false);
});

test('prototype keys in dictionaries cannot pollute the result', () => {
  const result = parseExtensionMessage(JSON.parse('{"type":"graphState","runStatus":"idle","iteration":0,"takenEdges":[],"nodes":{"__proto__":{"status":"success","visits":1,"iteration":0}}}'));
  assert.ok(result.ok);
  assert.equal(({} as Record<string, unknown>).status, undefined);
  if (result.ok && result.value.type === 'graphState') assert.equal(Object.getPrototypeOf(result.value.nodes), null);
});
