// Through the real server: a document edited in small didChange steps (its outline updated
// incrementally) folds exactly like the same text opened fresh. Folding is read from the outline
// alone; semantic tokens also consult the lent model, which an edited document has and a fresh one not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { FoldingRangeRequest } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, fixtureText, fixtureUri, LspClient } from './lsp-client';

const fragments = ['[', ']', '"', '->', '{', '}', '=', ';', ',', 'shape', ' ', '\n', 'a', '/*', '*/', '//', '#', '<', '>', 'subgraph', 'node [', '"x\n'];
const edit = fc.record({ at: fc.nat(), length: fc.nat({ max: 12 }), text: fc.oneof(fc.constantFrom(...fragments), fc.constant('')) });

describe('incremental outline over stdio', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 0 });
  });
  after(async () => client.stop());

  it('folding after random edits equals that of the text opened fresh', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 10 }), async (edits) => {
        const uri = fixtureUri(`incremental-${run}.dot`);
        const fresh = fixtureUri(`incremental-fresh-${run++}.dot`);
        let document = TextDocument.create(uri, 'dot', 1, fixtureText('review-loop.dot'));
        await client.open(uri, document.getText());
        for (const { at, length, text } of edits) {
          const start = at % (document.getText().length + 1);
          const end = Math.min(document.getText().length, start + length);
          const change = { range: { start: document.positionAt(start), end: document.positionAt(end) }, text };
          document = TextDocument.update(document, [change], document.version + 1);
          await client.change(uri, [change]);
          // A request between edits makes the server build (and later update) this version's outline.
          await client.connection.sendRequest(FoldingRangeRequest.type, { textDocument: { uri } });
        }
        await client.open(fresh, document.getText());
        const [edited, opened] = await Promise.all([uri, fresh].map((u) => client.connection.sendRequest(FoldingRangeRequest.type, { textDocument: { uri: u } })));
        assert.deepEqual(edited, opened);
        await client.close(uri);
        await client.close(fresh);
      }),
      { numRuns: 30 },
    );
  });
});
