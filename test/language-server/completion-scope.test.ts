// Completion knows what the engine derives from scopes: a node's handler set by `node [shape=…]`
// defaults in its subgraph, and the class a subgraph's label gives its nodes (canonical 2.10),
// from the text alone, before any check, and after edits that change them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CompletionItem, CompletionList } from 'vscode-languageserver-protocol/node';
import { CompletionRequest } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, LspClient, positionOf } from './lsp-client';

const labels = (result: CompletionItem[] | CompletionList | null): string[] => (Array.isArray(result) ? result : (result?.items ?? [])).map((i) => i.label);

const text = [
  'digraph scoped {',
  '  model_stylesheet="* { llm_model: m; } "',
  '  start [shape=Mdiamond]',
  '  done [shape=Msquare]',
  '  subgraph cluster_checks {',
  '    label="Quality Gate"',
  '    node [shape=parallelogram]',
  '    lint [tool_command="make lint"]',
  '  }',
  '  review [prompt="Review"]',
  '  start -> lint',
  '  lint -> review [condition="outcome=success"]',
  '  review -> done',
  '}',
  '',
].join('\n');

describe('completion and scopes', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 10_000 });
  });
  after(async () => client.stop());

  const complete = async (uri: string, source: string, needle: string, delta: number) =>
    labels(await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(source, needle, delta) }));

  it('sees handlers set by node defaults in scope and classes derived from subgraph labels', async () => {
    const uri = 'file:///tmp/completion-scope.dot';
    await client.open(uri, text);
    const condition = await complete(uri, text, 'condition="', 'condition="'.length);
    assert.ok(condition.includes('context.tool.output'), `lint is a tool node by its subgraph's node defaults: ${condition.join(' ')}`);
    assert.ok(!condition.includes('context.last_response'), 'not a codergen node');
    const selectors = await complete(uri, text, 'm; } ', 'm; } '.length);
    assert.ok(selectors.includes('.quality-gate'), `the class the subgraph's label derives: ${selectors.join(' ')}`);

    // The subgraph's label edited: the next completion knows the new class.
    const at = positionOf(text, 'Quality Gate', 'Quality '.length);
    await client.change(uri, [{ range: { start: at, end: { line: at.line, character: at.character + 'Gate'.length } }, text: 'Wall' }]);
    const edited = text.replace('Quality Gate', 'Quality Wall');
    const afterEdit = await complete(uri, edited, 'm; } ', 'm; } '.length);
    assert.ok(afterEdit.includes('.quality-wall') && !afterEdit.includes('.quality-gate'), afterEdit.filter((l) => l.startsWith('.')).join(' '));
  });

  it('ranks attributes by the handler the defaults in scope give the node, in the first completion after open', async () => {
    const uri = 'file:///tmp/completion-scope-first.dot';
    await client.open(uri, text);
    const result = await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(text, '    lint [', '    lint ['.length) });
    const items = Array.isArray(result) ? result : (result?.items ?? []);
    const prompt = items.find((item) => item.label === 'prompt');
    assert.ok(prompt?.sortText?.startsWith('2'), `prompt is another handler's attribute on a tool node: ${prompt?.sortText}`);
  });

  it('ranks attributes by the handler after edits: one elsewhere keeps it, one to the defaults in scope changes it', async () => {
    const uri = 'file:///tmp/completion-scope-edits.dot';
    await client.open(uri, text);
    const promptRank = async (source: string) => {
      const result = await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(source, '    lint [', '    lint ['.length) });
      return (Array.isArray(result) ? result : (result?.items ?? [])).find((item) => item.label === 'prompt')?.sortText?.[0];
    };
    assert.equal(await promptRank(text), '2', 'a tool node');
    const review = positionOf(text, '"Review"', 1);
    await client.change(uri, [{ range: { start: review, end: review }, text: 'Please ' }]);
    const reworded = text.replace('"Review"', '"Please Review"');
    assert.equal(await promptRank(reworded), '2', 'another node\'s prompt changes nothing');
    const shape = positionOf(reworded, 'parallelogram]', 0);
    await client.change(uri, [{ range: { start: shape, end: { line: shape.line, character: shape.character + 'parallelogram'.length } }, text: 'box' }]);
    assert.equal(await promptRank(reworded.replace('parallelogram]', 'box]')), '0', 'the defaults in scope now make it a codergen node');
  });
});
