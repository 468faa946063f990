// What the editor chrome shows from the server, over stdio: occurrence highlights, breadcrumbs and
// sticky scroll (document symbols), and folding of multi-line statements.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DocumentSymbol, Position, Range } from 'vscode-languageserver-protocol/node';
import { DocumentHighlightKind, DocumentHighlightRequest, DocumentSymbolRequest, FoldingRangeRequest } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, fixtureUri, LspClient, positionOf } from './lsp-client';

const text = [
  'digraph p {',
  '  start [shape=Mdiamond]',
  '  implement [shape=box,',
  '             prompt="Make the tests pass"]',
  '  tests [shape=parallelogram,',
  '         tool_command="make test"]',
  '  review [shape=box, prompt="Review it"]',
  '  done [shape=Msquare]',
  '  start -> implement -> tests',
  '  tests -> review [condition="context.tests=green"]',
  '  tests -> implement [condition="context.tests!=green"]',
  '  review -> done',
  '}',
  '',
].join('\n');

const before_ = (a: Position, b: Position) => a.line < b.line || (a.line === b.line && a.character <= b.character);
const contains = (range: Range, at: Position) => before_(range.start, at) && before_(at, range.end);

/** The symbols around a position, outermost first: what breadcrumbs show and sticky scroll pins. */
function pathAt(symbols: readonly DocumentSymbol[], at: Position): DocumentSymbol[] {
  const inner = symbols.find((s) => contains(s.range, at));
  return inner ? [inner, ...pathAt(inner.children ?? [], at)] : [];
}

describe('highlights, symbols and folding over stdio', () => {
  const uri = fixtureUri('chrome.dot');
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 10 });
    await client.open(uri, text);
  });
  after(async () => client.stop());

  it('highlights a node\'s uses, not an equal context key inside a condition', async () => {
    const highlights = (await client.connection.sendRequest(DocumentHighlightRequest.type, { textDocument: { uri }, position: positionOf(text, 'tests [', 1) })) ?? [];
    const lines = highlights.map((h) => `${h.range.start.line}:${h.range.start.character}:${h.kind}`);
    assert.deepEqual(lines, [`4:2:${DocumentHighlightKind.Write}`, `8:24:${DocumentHighlightKind.Read}`, `9:2:${DocumentHighlightKind.Read}`, `10:2:${DocumentHighlightKind.Read}`]);
    const onKey = await client.connection.sendRequest(DocumentHighlightRequest.type, { textDocument: { uri }, position: positionOf(text, 'context.tests', 10) });
    assert.deepEqual(onKey, [], 'a context key is not a node');
  });

  it('names the statement the cursor is in, with its handler, for breadcrumbs and sticky scroll', async () => {
    const symbols = (await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } })) as DocumentSymbol[];
    const inCommand = positionOf(text, 'tool_command="make', 3);
    const path = pathAt(symbols, inCommand);
    assert.deepEqual(path.map((s) => s.name), ['p', 'tests']);
    assert.match(path[1]?.detail ?? '', /^tool/);
    assert.equal(path[1]?.range.start.line, 4, 'sticky scroll pins the line the statement starts on');
    const inPrompt = pathAt(symbols, positionOf(text, 'prompt="Make', 3));
    assert.deepEqual(inPrompt.map((s) => [s.name, s.detail?.split(' ')[0]]), [['p', 'pipeline'], ['implement', 'codergen']]);
    const children = symbols[0]?.children ?? [];
    assert.deepEqual(children.map((c) => c.name), ['start', 'implement', 'tests', 'review', 'done'], 'document order');
    for (let k = 1; k < children.length; k++) assert.ok(before_((children[k - 1] as DocumentSymbol).range.end, (children[k] as DocumentSymbol).range.start), 'siblings do not overlap');
  });

  it('folds a multi-line node statement from its own line through the line that closes it', async () => {
    const folds = (await client.connection.sendRequest(FoldingRangeRequest.type, { textDocument: { uri } })) ?? [];
    const spans = folds.map((f) => `${f.startLine}-${f.endLine}`);
    assert.ok(spans.includes('2-3') && spans.includes('4-5'), spans.join(' '));
  });
});
