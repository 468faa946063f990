// Random edits against the real server: it must never crash and must answer every request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CompletionRequest, DocumentFormattingRequest, DocumentSymbolRequest, FoldingRangeRequest, HoverRequest, SemanticTokensRequest } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, fixtureText, fixtureUri, LspClient } from './lsp-client';

const fragments = ['[', ']', '"', '->', '{', '}', '=', ';', ',', 'shape', 'condition="outcome=', '&&', 'context.', ' ', '\n', 'a', '/*', '*/', '//', '#', '<', '>', '\\', '$goal', 'subgraph', 'node [', '"x\n'];
const insertion = fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 6 }));
const edit = fc.record({ at: fc.nat(), length: fc.nat({ max: 12 }), text: fc.oneof(insertion, fc.constant('')) });

describe('fuzzed edits over stdio', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 0 });
  });
  after(async () => client.stop());

  it('never crashes and always answers completion, hover and documentSymbol', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 12 }), fc.nat(), async (edits, probe) => {
        const uri = fixtureUri(`fuzz-${run++}.dot`);
        let document = TextDocument.create(uri, 'dot', 1, fixtureText('review-loop.dot'));
        await client.open(uri, document.getText());
        for (const { at, length, text } of edits) {
          const start = at % (document.getText().length + 1);
          const end = Math.min(document.getText().length, start + length);
          const change = { range: { start: document.positionAt(start), end: document.positionAt(end) }, text };
          document = TextDocument.update(document, [change], document.version + 1);
          await client.change(uri, [change]);
          const position = document.positionAt(probe % (document.getText().length + 1));
          const [completion, hover, symbols] = await Promise.all([
            client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position }),
            client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position }),
            client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } }),
          ]);
          assert.ok(completion !== undefined && hover !== undefined && Array.isArray(symbols));
        }
        await client.connection.sendRequest(FoldingRangeRequest.type, { textDocument: { uri } });
        await client.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri } });
        await client.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
        assert.equal(client.process.exitCode, null, 'the server is still running');
      }),
      { numRuns: 40 },
    );
  });
});
