// What VS Code asks besides completion after an edit (semantic tokens, folding, symbols, links,
// hover), each timed through the real stdio server on a generated pipeline, and a completion sent
// right behind them (the latency a user feels when typing resumes while VS Code refreshes the editor).
import os from 'node:os';
import { CompletionRequest, DocumentLinkRequest, DocumentSymbolRequest, FoldingRangeRequest, HoverRequest, SemanticTokensRequest } from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { languageServerExecArgv } from '../host/language-server-limits';
import { ensureTestBundle, LspClient, positionOf } from '../test/language-server/lsp-client';
import { completionProbes, generatePipeline } from './language-server/generate-pipeline';
import { median, typingEdit } from './language-server/typing';
import type { BenchReport } from './report';

const sizes = [1000, 5000];
const runs = 7;
const warmup = 2;

export default async function bench(): Promise<BenchReport> {
  ensureTestBundle();
  const figures: Record<string, number> = {};
  const client = await LspClient.start({ diagnosticsDelayMs: 150 }, undefined, languageServerExecArgv);
  try {
    for (const size of sizes) {
      const text = generatePipeline(size);
      const [probe] = completionProbes(text, size);
      const uri = `file:///bench/requests-${size}.dot`;
      await client.open(uri, text);
      await client.diagnosticsFor(uri);
      let document = TextDocument.create(uri, 'dot', 1, text);
      const timings = new Map<string, number[]>();
      const time = async (name: string, request: () => Promise<unknown>, k: number): Promise<void> => {
        const start = performance.now();
        await request();
        if (k >= warmup) timings.set(name, [...(timings.get(name) ?? []), performance.now() - start]);
      };
      const { connection } = client;
      const textDocument = { uri };
      for (let k = 0; k < runs + warmup; k++) {
        const typed = typingEdit(document, k);
        document = typed.document;
        const shifted = (needle: string, delta: number) => positionOf(document.getText(), needle, delta);
        await client.change(uri, [typed.change]);
        await time('semantic tokens', () => connection.sendRequest(SemanticTokensRequest.type, { textDocument }), k);
        await time('folding ranges', () => connection.sendRequest(FoldingRangeRequest.type, { textDocument }), k);
        await time('document links', () => connection.sendRequest(DocumentLinkRequest.type, { textDocument }), k);
        await time('hover on an attribute key', () => connection.sendRequest(HoverRequest.type, { textDocument, position: shifted('  n1 [shape=parallelogram', '  n1 ['.length + 1) }), k);
        // Symbols and a node's hover describe the pipeline as the engine reads it: they wait for this version's check.
        await time('document symbols (waits for the check)', () => connection.sendRequest(DocumentSymbolRequest.type, { textDocument }), k);
        await time('hover on a node (waits for the check)', () => connection.sendRequest(HoverRequest.type, { textDocument, position: shifted('  n1 [shape=parallelogram', 3) }), k);

        const next = typingEdit(document, k + 1);
        document = next.document;
        await client.change(uri, [next.change]);
        const start = performance.now();
        const refreshes = [connection.sendRequest(SemanticTokensRequest.type, { textDocument }), connection.sendRequest(FoldingRangeRequest.type, { textDocument })];
        await connection.sendRequest(CompletionRequest.type, { textDocument, position: document.positionAt((probe?.offset ?? 0) + next.shift) });
        if (k >= warmup) timings.set('completion sent behind semantic tokens and folding', [...(timings.get('completion sent behind semantic tokens and folding') ?? []), performance.now() - start]);
        await Promise.all(refreshes);
      }
      for (const [name, values] of timings) figures[`${name} after an edit, ${size} nodes (ms)`] = median(values);
      await client.close(uri);
    }
  } finally {
    await client.stop();
  }
  return {
    name: 'language-server requests',
    figures,
    notes: `real server over stdio started with ${languageServerExecArgv.join(' ')}, load average ${os.loadavg()[0]?.toFixed(1)}; after each edit (a space typed or deleted on line 2) the requests VS Code sends besides completion, one at a time, median of ${runs}; then a completion sent right behind a semantic-tokens and a folding request`,
  };
}
