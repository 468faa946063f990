// Completion, and hover on anything but a node, read the text alone: right after didOpen and right
// after an edit of a large pipeline they answer, correctly, before the checker has published
// anything for that version.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CompletionItem, CompletionList } from 'vscode-languageserver-protocol/node';
import { CompletionRequest, HoverRequest } from 'vscode-languageserver-protocol/node';
import type { MarkupContent } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, LspClient, positionOf } from './lsp-client';

const labels = (result: CompletionItem[] | CompletionList | null): string[] => (Array.isArray(result) ? result : (result?.items ?? [])).map((i) => i.label);

/** A chain of tool steps long enough that checking it takes far longer than completing in it. */
function chain(steps: number): string {
  const lines = ['digraph big {', '  goal="Ship"', '  start [shape=Mdiamond]', '  done [shape=Msquare]'];
  for (let k = 0; k < steps; k++) lines.push(`  s${k} [shape=parallelogram, tool_command="make ${k}", outputs="out_${k}"]`);
  lines.push('  start -> s0');
  for (let k = 0; k + 1 < steps; k++) lines.push(`  s${k} -> s${k + 1} [condition="outcome=success", label="next ${k}"]`);
  lines.push(`  s${steps - 1} -> done`, '}', '');
  return lines.join('\n');
}

describe('completion before the check', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 10 });
  });
  after(async () => client.stop());

  it('answers right after open and right after an edit from the text, without waiting for diagnostics', async () => {
    const uri = 'file:///tmp/completion-before-check.dot';
    const text = chain(3000);
    await client.open(uri, text);
    const condition = labels(await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(text, 's1500 -> s1501 [condition="', 's1500 -> s1501 [condition="'.length) }));
    assert.equal(client.published(uri).length, 0, 'answered before the first check was published');
    assert.ok(condition.includes('context.out_1500') && condition.includes('context.out_0') && !condition.includes('context.out_1501'), 'upstream outputs only');

    // A new upstream step typed above: the very next completion knows it.
    const at = positionOf(text, '  start -> s0');
    const typed = '  extra [shape=parallelogram, outputs="typed_key"]\n  extra -> s1500\n';
    const version = await client.change(uri, [{ range: { start: at, end: at }, text: typed }]);
    const edited = text.replace('  start -> s0', `${typed}  start -> s0`);
    const afterEdit = labels(await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(edited, 's1500 -> s1501 [condition="', 's1500 -> s1501 [condition="'.length) }));
    assert.ok(!client.published(uri).some((p) => p.version === version), 'answered before the edited version was checked');
    assert.ok(afterEdit.includes('context.typed_key'), afterEdit.filter((l) => l.startsWith('context.typed')).join(' '));
    const targets = labels(await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(edited, 'extra -> ', 'extra -> '.length) }));
    assert.ok(targets.includes('extra') && targets.includes('s2999') && targets.includes('done'));
  });

  it('hovers an attribute, a value and a $variable right after an edit without waiting for the check; a node once checked', async () => {
    const uri = 'file:///tmp/hover-before-check.dot';
    const text = chain(3000);
    await client.open(uri, text);
    await client.diagnosticsFor(uri);
    const at = positionOf(text, '  start -> s0');
    const typed = '  ask [shape=box, prompt="Reach $goal"]\n';
    const version = await client.change(uri, [{ range: { start: at, end: at }, text: typed }]);
    const edited = text.replace('  start -> s0', `${typed}  start -> s0`);
    const hoverAt = async (needle: string, delta: number) => ((await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: positionOf(edited, needle, delta) }))?.contents as MarkupContent | undefined)?.value ?? '';
    const key = await hoverAt('s1500 [shape=parallelogram, tool_command', 'shape=parallelogram, '.length + 's1500 ['.length + 2);
    const shape = await hoverAt('s1500 [shape=parallelogram', 's1500 [shape='.length + 2);
    const goal = await hoverAt('Reach $goal', 'Reach $'.length + 1);
    assert.ok(!client.published(uri).some((p) => p.version === version), 'answered before the edited version was checked');
    assert.match(key, /tool_command/);
    assert.match(shape, /handler `tool`/);
    assert.match(goal, /the graph goal: "Ship"/);
    // A node's summary describes the pipeline as the engine reads it: after the check, with the new node.
    assert.match(await hoverAt('  ask [', 3), /\*\*ask\*\* — handler `codergen`/);
  });
});
