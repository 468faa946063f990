// Issue 31 item 10: subgraphs nested 100,000 deep kept the server from answering anything for two
// minutes, where the CLI refuses the text in 0.3 s. The server holds the same limit: it says so in
// Problems, every request about the text answers at once with nothing, and the server serves on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PARSE_LIMITS } from '../../engine/parse/parse-limits';
import { ensureTestBundle, fixtureUri, LspClient } from './lsp-client';

const depth = 100_000;
const deep = `digraph deep {\n${'subgraph { '.repeat(depth)}a${' }'.repeat(depth)}\n}\n`;
/** A request that has not answered in this long answered nothing (today's server took minutes). */
const PATIENCE_MS = 60_000;

async function answered<T>(what: string, request: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} answered nothing for ${PATIENCE_MS / 1000} s`)), PATIENCE_MS);
  });
  try {
    return await Promise.race([request, gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a text past the parse limits (language server over stdio)', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 10 });
  });
  after(async () => client.stop());

  it(`subgraphs nested ${depth} deep: the limit in Problems, every request answered with nothing, the server serving on`, async () => {
    const uri = fixtureUri('deep-nesting.dot');
    await client.open(uri, deep);
    const published = await answered('diagnostics', client.diagnosticsFor(uri, (p) => p.diagnostics.length > 0));
    assert.deepEqual(
      published.diagnostics.map((d) => d.message),
      [`pipeline too large: subgraphs nested ${depth} deep (limit ${PARSE_LIMITS.subgraphDepth})`],
    );
    const document = { textDocument: { uri } };
    const inside = { ...document, position: { line: 1, character: 'subgraph { '.length * (depth / 2) + 2 } };
    for (const [method, params] of [
      ['textDocument/documentSymbol', document],
      ['textDocument/foldingRange', document],
      ['textDocument/semanticTokens/full', document],
      ['textDocument/documentLink', document],
      ['textDocument/formatting', { ...document, options: { tabSize: 2, insertSpaces: true } }],
      ['textDocument/hover', inside],
      ['textDocument/completion', inside],
      ['textDocument/definition', inside],
      ['textDocument/references', { ...inside, context: { includeDeclaration: true } }],
      ['textDocument/documentHighlight', inside],
    ] as const) {
      const result: unknown = await answered(method, client.connection.sendRequest(method, params));
      const empty = result === null || (Array.isArray(result) && result.length === 0) || (typeof result === 'object' && 'data' in result && Array.isArray(result.data) && result.data.length === 0);
      assert.ok(empty, `${method} answers nothing about a text the parser refuses: ${JSON.stringify(result).slice(0, 200)}`);
    }

    const next = fixtureUri('after-deep-nesting.dot');
    await client.open(next, 'digraph ok {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> done\n  orphan\n}\n');
    const later = await answered('a later document', client.diagnosticsFor(next, (p) => p.diagnostics.length > 0));
    assert.ok(later.diagnostics.some((d) => d.code === 'reachability'));
  });
});
