// The extension's own requests (host/protocol/language-server.ts) over JSON-RPC stdio: breakpoint
// targets and the node at a position, answered from the server's parse of the open document.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { BREAKPOINT_TARGETS_METHOD, NODE_AT_METHOD, parseBreakpointTargetsResult, parseNodeAtResult } from '../../host/protocol/language-server';
import { reviewPipeline } from '../fixtures/review-pipeline';
import { styledLlmPipeline } from '../fixtures/styled-llm-pipeline';
import { ensureTestBundle, fixtureUri, LspClient, positionOf } from './lsp-client';

const styled = styledLlmPipeline;

describe('attractor/breakpointTargets and attractor/nodeAt (language server over stdio)', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 10 });
  });
  after(async () => client.stop());

  const targets = async (uri: string, lines: number[]) => {
    const result = parseBreakpointTargetsResult(await client.connection.sendRequest(BREAKPOINT_TARGETS_METHOD, { textDocument: { uri }, lines }));
    assert.ok(result.ok, result.ok ? '' : result.error);
    return result.value;
  };
  const nodeAt = async (uri: string, text: string, needle: string, delta = 1) => {
    const result = parseNodeAtResult(await client.connection.sendRequest(NODE_AT_METHOD, { textDocument: { uri }, position: positionOf(text, needle, delta) }));
    assert.ok(result.ok, result.ok ? '' : result.error);
    return result.value;
  };

  it('maps breakpoint lines of the open document to nodes and edges; a node statement line to its node', async () => {
    const uri = fixtureUri('queries-review.dot');
    await client.open(uri, reviewPipeline);
    assert.deepEqual(await targets(uri, [2, 5, 6, 0]), { nodes: ['work'], edges: [0, 1, 2] });
    assert.deepEqual(await targets(uri, [3]), { nodes: ['gate'], edges: [] });
    assert.deepEqual((await targets(uri, [5]))?.nodes, []);
  });

  it('answers for the version the editor sent last, and null while it does not parse', async () => {
    const uri = fixtureUri('queries-edited.dot');
    await client.open(uri, reviewPipeline);
    await client.change(uri, [{ text: reviewPipeline.replace('  work  [prompt="do it"]\n', '') }]);
    assert.deepEqual(await targets(uri, [2]), { nodes: ['gate'], edges: [] });
    await client.change(uri, [{ text: reviewPipeline.replace('gate  [shape=hexagon]', 'gate  [shape=') }]);
    assert.equal(await targets(uri, [2]), null);
  });

  it('reads a pipeline the editor has not opened from disk', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-queries-'));
    const file = path.join(dir, 'closed.dot');
    fs.writeFileSync(file, reviewPipeline);
    try {
      assert.deepEqual(await targets(pathToFileURL(file).href, [3, 6]), { nodes: ['gate'], edges: [2] });
      assert.equal(await targets(pathToFileURL(path.join(dir, 'missing.dot')).href, [3]), null);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the node at a position with its handler and the model a launch would ask for (stylesheet applied)', async () => {
    const uri = fixtureUri('queries-styled.dot');
    await client.open(uri, styled);
    assert.deepEqual(await nodeAt(uri, styled, 'work ['), { nodeId: 'work', handler: 'codergen', modelSelection: { model: 'gpt-4.1' } });
    assert.deepEqual(await nodeAt(uri, styled, 'review ['), { nodeId: 'review', handler: 'codergen', modelSelection: { model: 'claude-sonnet-4-5' } });
    assert.deepEqual(await nodeAt(uri, styled, '-> review', 4), { nodeId: 'review', handler: 'codergen', modelSelection: { model: 'claude-sonnet-4-5' } }, 'a reference names the node too');
    assert.equal((await nodeAt(uri, styled, 'start ['))?.handler, 'start');
    assert.equal(await nodeAt(uri, styled, 'model_stylesheet'), null);
  });

  it('refuses malformed params with InvalidParams', async () => {
    await assert.rejects(client.connection.sendRequest(BREAKPOINT_TARGETS_METHOD, { textDocument: { uri: fixtureUri('x.dot') }, lines: [-1] }), (error: { code?: number; message?: string }) => error.code === -32602 && /lines\[0\]/.test(error.message ?? ''));
    await assert.rejects(client.connection.sendRequest(NODE_AT_METHOD, { textDocument: {} }), (error: { code?: number }) => error.code === -32602);
  });
});
