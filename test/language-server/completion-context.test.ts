// Completion as a user meets it mid-edit, over stdio: the context below a slip, a file that has
// never parsed, the order of the list, and attributes only where Graphviz uses them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CompletionItem, CompletionList } from 'vscode-languageserver-protocol/node';
import { CompletionRequest } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, fixtureUri, LspClient, positionOf } from './lsp-client';

/** Items in the order VS Code shows them: by sortText, then label. */
const ordered = (result: CompletionItem[] | CompletionList | null): string[] =>
  (Array.isArray(result) ? result : (result?.items ?? []))
    .slice()
    .sort((a, b) => (a.sortText ?? a.label).localeCompare(b.sortText ?? b.label))
    .map((i) => i.label);

describe('completion mid-edit over stdio', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 10 });
  });
  after(async () => client.stop());

  /** Opens `text` with `|` marking the cursor and asks for completion there. */
  const completeAt = async (name: string, marked: string) => {
    const uri = fixtureUri(`${name}.dot`);
    const text = marked.replace('|', '');
    await client.open(uri, text);
    return ordered(await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(marked, '|') }));
  };

  it('offers node ids after `plan -> ` below a string left unclosed', async () => {
    const labels = await completeAt('unclosed-above', 'digraph p {\n  start [shape=Mdiamond]\n  plan [prompt="draft the plan]\n  review [shape=box]\n  start -> plan\n  plan -> |\n}\n');
    assert.deepEqual(new Set(labels), new Set(['start', 'plan', 'review']));
  });

  it('offers the upstream context keys in a file that has never parsed', async () => {
    const labels = await completeAt(
      'never-parsed',
      'digraph p {\n  start [shape=Mdiamond]\n  test [shape=parallelogram, tool_command="make test"]\n  a [x=]\n  b [y=]\n  c [z=]\n  d [w=]\n  e [v=]\n  start -> test\n  test -> done [condition="context.|"]\n}\n',
    );
    assert.ok(labels.includes('context.tool.last_line'), labels.join(' '));
    assert.ok(labels.includes('context.graph.goal'), labels.join(' '));
  });

  it('lists the node\'s own handler\'s attributes first, then the common ones, then other handlers\'', async () => {
    const labels = await completeAt('handler-first', 'digraph p {\n  start [shape=Mdiamond]\n  test [shape=parallelogram, |]\n  start -> test\n}\n');
    const at = (label: string) => labels.indexOf(label);
    assert.ok(at('tool_command') >= 0 && at('tool_command') < at('label'), 'tool_command before label');
    assert.ok(at('label') < at('prompt'), 'label (every handler) before prompt (codergen)');
    assert.ok(at('prompt') < at('color'), 'Graphviz rendering last');
    assert.deepEqual(labels.slice(0, 5).sort(), ['parse_json', 'sandbox', 'sandbox_writable', 'tool_command', 'tool_env'], labels.slice(0, 7).join(' '));
  });

  it('offers Graphviz attributes only on the elements Graphviz uses them on', async () => {
    const node = await completeAt('graphviz-node', 'digraph p {\n  start [shape=Mdiamond]\n  work [|]\n  start -> work\n}\n');
    for (const foreign of ['arrowhead', 'lhead', 'rankdir']) assert.ok(!node.includes(foreign), `node offered ${foreign}`);
    assert.ok(node.includes('fillcolor') && node.includes('color'));
    const edge = await completeAt('graphviz-edge', 'digraph p {\n  start [shape=Mdiamond]\n  work\n  start -> work [|]\n}\n');
    assert.ok(edge.includes('arrowhead') && edge.includes('lhead'));
    assert.ok(!edge.includes('rankdir') && !edge.includes('fixedsize'));
  });
});
