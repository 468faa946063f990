// Mid-edit behaviour over stdio: syntax errors located precisely, recovered models keeping
// completion and hover alive, superseded versions, and dot_file parents re-validated on child edits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CompletionItem, CompletionList, MarkupContent } from 'vscode-languageserver-protocol/node';
import { CompletionRequest, DocumentSymbolRequest, HoverRequest } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, fixtureText, fixtureUri, LspClient, positionOf } from './lsp-client';

const labels = (result: CompletionItem[] | CompletionList | null) => (Array.isArray(result) ? result : (result?.items ?? [])).map((i) => i.label);

describe('editing over stdio', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 10 });
  });
  after(async () => client.stop());

  it('reports a syntax error where it is and keeps completion and hover alive while typing `a [sha`', async () => {
    const uri = fixtureUri('typing.dot');
    const original = fixtureText('review-loop.dot');
    await client.open(uri, original);
    const at = positionOf(original, '  child [shape=folder');
    const typed = 'gate2 [sha\n';
    const version = await client.change(uri, [{ range: { start: at, end: at }, text: typed }]);
    const text = original.slice(0, original.indexOf('  child [shape=folder')) + typed + original.slice(original.indexOf('  child [shape=folder'));
    const published = await client.diagnosticsFor(uri, (p) => p.version === version);
    assert.equal(published.diagnostics.length, 1);
    const syntax = published.diagnostics[0];
    assert.equal(syntax?.code, 'syntax');
    assert.match(String(syntax?.message), /DOT syntax error/);
    assert.deepEqual(syntax?.range.start, { line: at.line, character: 'gate2 [sha'.length }, 'right after the half-typed key, where `=` is expected');
    assert.match(String(syntax?.message), /Expected "="/);

    const completion = await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(text, 'gate2 [sha', 10) });
    const names = labels(completion);
    assert.ok(names.includes('shape') && names.includes('prompt'));
    const hover = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: positionOf(text, 'review -> gate', 1) });
    assert.match((hover?.contents as MarkupContent).value, /handler `codergen`/);
    const symbols = await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
    assert.ok(symbols && symbols.length === 1);
  });

  it('completes variables inside an unterminated prompt string', async () => {
    const uri = fixtureUri('unterminated.dot');
    const text = 'digraph G {\n  goal="Ship it"\n  start [shape=Mdiamond]\n  work [prompt="Do $g\n  start -> work\n}\n';
    await client.open(uri, text);
    const completion = await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(text, '$g', 2) });
    assert.ok(labels(completion).includes('$goal'));
  });

  it('publishes only for the newest version after a burst of edits', async () => {
    const uri = fixtureUri('burst.dot');
    const text = 'digraph G {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> done\n}\n';
    await client.open(uri, text);
    let version = 1;
    for (let k = 0; k < 5; k++) version = await client.change(uri, [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: `  n${k}\n` }]);
    const last = await client.diagnosticsFor(uri, (p) => p.version === version);
    assert.ok(last);
    const versions = client.published(uri).map((p) => p.version ?? 0);
    assert.deepEqual(versions, [...versions].sort((a, b) => a - b), 'versions are published in order');
  });

  it('re-validates an open parent when its dot_file child changes', async () => {
    const parentUri = fixtureUri('review-loop.dot');
    const childUri = fixtureUri('child.dot');
    const childText = fixtureText('child.dot');
    await client.open(parentUri, fixtureText('review-loop.dot'));
    await client.diagnosticsFor(parentUri, (p) => p.diagnostics.some((d) => d.code === 'child_pipeline'));
    await client.open(childUri, childText);
    const before = client.published(parentUri).length;
    await client.change(childUri, [{ text: childText.replace('start -> work', 'done [shape=Msquare]\n  start -> work -> done') }]);
    const republished = await client.diagnosticsFor(parentUri, (p) => client.published(parentUri).indexOf(p) >= before && !p.diagnostics.some((d) => d.code === 'child_pipeline'));
    assert.ok(republished);
  });
});
