// Through the real server: typing a value into a node's list adds tokens inside one statement (the
// outline update moves every later row). After each keystroke, completion at the cursor and at a
// place further down answers exactly as it does in the same text opened fresh, on random pipelines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { CompletionRequest } from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ensureTestBundle, LspClient } from './lsp-client';

const shapes = ['box', 'diamond', 'parallelogram', 'hexagon', 'Mdiamond', 'Msquare'];
const node = fc.record({ shape: fc.constantFrom(...shapes), label: fc.option(fc.string({ maxLength: 8 }).map((s) => s.replace(/["\\\n]/g, ''))), outputs: fc.option(fc.constantFrom('result', 'plan', 'score')) });
const pipeline = fc.record({
  nodes: fc.array(node, { minLength: 2, maxLength: 25 }),
  edges: fc.array(fc.record({ from: fc.nat(), to: fc.nat(), condition: fc.option(fc.constantFrom('outcome=success', 'outcome!=success', 'context.result=ok')) }), { maxLength: 30 }),
});
type PipelineShape = typeof pipeline extends fc.Arbitrary<infer T> ? T : never;

function pipelineText({ nodes, edges }: PipelineShape): string {
  const lines = ['digraph typed {', '  goal="Type a value"'];
  nodes.forEach(({ shape, label, outputs }, k) => {
    const attributes = [`shape=${shape}`, ...(label !== null ? [`label="${label}"`] : []), ...(outputs !== null ? [`outputs="${outputs}"`] : [])];
    lines.push(`  n${k} [${attributes.join(', ')}]`);
  });
  for (const { from, to, condition } of edges) lines.push(`  n${from % nodes.length} -> n${to % nodes.length}${condition !== null ? ` [condition="${condition}"]` : ''}`);
  lines.push('}', '');
  return lines.join('\n');
}

/** What reaches the server as a value is typed: a key, `=`, a quoted value (the editor closes the quote), a separator. */
const keystrokes = fc.constantFrom(['t', 'i', 'm', 'e', 'o', 'u', 't', '=', '""', '9', 's', ',', ' '], ['m', 'a', 'x', '_', 'r', 'e', 't', 'r', 'i', 'e', 's', '=', '3', ', '], ['c', 'l', 'a', 's', 's', '=', '""', 'a', ' ', 'b', ';']);

describe('typing a value over stdio', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 60_000 });
  });
  after(async () => client.stop());

  it('completion after each keystroke that adds a token equals completion in the text opened fresh', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(pipeline, fc.nat(), keystrokes, fc.nat(), async (shape, which, typed, further) => {
        const text = pipelineText(shape);
        const uri = `file:///typing/edited-${run++}.dot`;
        let document = TextDocument.create(uri, 'dot', 1, text);
        await client.open(uri, text);
        const lists = [...text.matchAll(/^ {2}n\d+ \[/gm)].map((match) => (match.index ?? 0) + match[0].length);
        let at = lists[which % lists.length] as number;
        for (const [k, stroke] of typed.entries()) {
          const position = document.positionAt(at);
          const change = { range: { start: position, end: position }, text: stroke };
          document = TextDocument.update(document, [change], document.version + 1);
          await client.change(uri, [change]);
          // Inside the quotes the editor closed, the cursor sits before the closing one.
          at += stroke === '""' ? 1 : stroke.length;
          const rest = document.getText();
          const probes = [at, (at + 1 + (further % Math.max(1, rest.length - at))) % (rest.length + 1)];
          const fresh = `file:///typing/fresh-${run}-${k}.dot`;
          await client.open(fresh, rest);
          for (const offset of probes) {
            const request = (target: string) => client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: target }, position: document.positionAt(offset) });
            const [edited, opened] = await Promise.all([request(uri), request(fresh)]);
            assert.deepEqual(edited, opened, `after typing ${JSON.stringify(typed.slice(0, k + 1).join(''))}, completion at offset ${offset}`);
          }
          await client.close(fresh);
        }
        await client.close(uri);
      }),
      { numRuns: 15 },
    );
  });
});
