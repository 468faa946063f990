// A file with a syntax error still shows the semantic diagnostics of the statements the parser read
// whole (as TypeScript and rust-analyzer keep semantic errors beside syntax errors); nothing is said
// about what the broken statement touches, and nothing that needs the whole graph read.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, fixtureUri, LspClient } from './lsp-client';

const pipeline = `digraph release {
  start  [shape=Mdiamond]
  draft  [temprature="0.2", prompt="Write the notes"]
  check  [goal_gate=true, prompt="Check the notes"]
  orphan [prompt="Nobody routes here"]
  review [shape=hexagon, label="Ship it?"]
  done   [shape=Msquare]
  start -> draft -> check -> review
  review -> done [label="[Y] Yes"]
  review -> draft [label="[N] No"]
}
`;

const summary = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => `${d.range.start.line + 1}:${d.code}`).sort();

describe('semantic diagnostics beside a syntax error (language server over stdio)', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 10 });
  });
  after(async () => client.stop());

  it('keeps the unknown attribute, the goal gate without retry target and the unreachable node while review is half typed', async () => {
    const uri = fixtureUri('semantic-beside-syntax.dot');
    await client.open(uri, pipeline);
    const whole = await client.diagnosticsFor(uri, (p) => p.version === 1);
    assert.deepEqual(summary(whole.diagnostics), ['3:unknown_attribute', '4:goal_gate_has_retry', '5:reachability']);

    const broken = pipeline.replace('label="Ship it?"]', 'label=]');
    const version = await client.change(uri, [{ text: broken }]);
    const published = await client.diagnosticsFor(uri, (p) => p.version === version);
    assert.deepEqual(summary(published.diagnostics), ['3:unknown_attribute', '4:goal_gate_has_retry', '5:reachability', '6:syntax']);
    assert.ok(!published.diagnostics.some((d) => d.code !== 'syntax' && /`review`/.test(typeof d.message === 'string' ? d.message : d.message.value)), 'nothing is said of the node whose statement broke');
  });

  it('says nothing that needs the whole graph read: no "no exit node" when the exit statement is the broken one', async () => {
    const uri = fixtureUri('semantic-beside-syntax-exit.dot');
    await client.open(uri, pipeline.replace('done   [shape=Msquare]', 'done   [shape=]'));
    const published = await client.diagnosticsFor(uri, (p) => p.version === 1);
    assert.deepEqual(summary(published.diagnostics), ['3:unknown_attribute', '4:goal_gate_has_retry', '5:reachability', '7:syntax']);
  });
});
