// A pipeline in an untrusted workspace naming /dev/zero or a FIFO: the server over stdio shows a
// diagnostic and stays alive.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ensureTestBundle, LspClient } from './lsp-client';

const withSchema = (schema: string) => `digraph s {
  start [shape=Mdiamond]
  ask [prompt="Answer.", response_schema="${schema}"]
  done [shape=Msquare]
  start -> ask -> done
}
`;

describe('hostile paths (language server over stdio)', () => {
  let client: LspClient;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-lsp-hostile-'));

  before(async () => {
    ensureTestBundle();
    execFileSync('mkfifo', [path.join(dir, 'fifo.json'), path.join(dir, 'fifo.dot')]);
    client = await LspClient.start();
  });
  after(async () => {
    await client.stop();
  });

  async function messagesFor(name: string, text: string): Promise<string[]> {
    const uri = pathToFileURL(path.join(dir, name)).href;
    fs.writeFileSync(path.join(dir, name), text);
    await client.open(uri, text);
    const published = await Promise.race([client.diagnosticsFor(uri, (p) => p.diagnostics.length > 0), client.exited.then((code) => assert.fail(`the server exited (${code})`))]);
    return published.diagnostics.map((d) => (typeof d.message === 'string' ? d.message : d.message.value));
  }

  it('response_schema="/dev/zero" and a FIFO schema are diagnosed; the server keeps serving', async () => {
    const zero = await messagesFor('zero.dot', withSchema('/dev/zero'));
    assert.ok(zero.some((m) => /\/dev\/zero: it is a character device, not a regular file/.test(m)), zero.join('\n'));
    const fifo = await messagesFor('fifo-schema.dot', withSchema('fifo.json'));
    assert.ok(fifo.some((m) => /fifo\.json: it is a FIFO \(named pipe\), not a regular file/.test(m)), fifo.join('\n'));
    const after = await messagesFor('after.dot', 'digraph a { start [shape=Mdiamond]; done [shape=Msquare]; start -> done; x }');
    assert.ok(after.length > 0, 'a later document still gets diagnostics');
    assert.equal(client.process.exitCode, null);
  });

  it('a dot_file naming /dev/zero or a FIFO does not hang or crash the child-pipeline check', async () => {
    const child = (file: string) => `digraph p {
  start [shape=Mdiamond]
  child [shape=folder, dot_file="${file}"]
  done [shape=Msquare]
  start -> child -> done
  orphan
}
`;
    for (const [name, file] of [['zero-child.dot', '/dev/zero'], ['fifo-child.dot', 'fifo.dot']] as const) {
      const messages = await messagesFor(name, child(file));
      assert.ok(messages.length > 0);
    }
    const alive = await messagesFor('alive.dot', withSchema('/dev/zero'));
    assert.ok(alive.some((m) => /not a regular file/.test(m)));
    assert.equal(client.process.exitCode, null);
  });

  it('a document starting with a UTF-8 byte-order mark has no syntax error, and diagnostics keep their positions', async () => {
    const messages = await messagesFor('bom.dot', '\uFEFFdigraph b {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> done\n  start -> ghost\n}\n');
    assert.ok(!messages.some((m) => /syntax/i.test(m)), messages.join('\n'));
    const uri = pathToFileURL(path.join(dir, 'bom.dot')).href;
    const ghost = client.published(uri).at(-1)?.diagnostics.find((d) => String(typeof d.message === 'string' ? d.message : d.message.value).includes('`ghost`'));
    assert.deepEqual(ghost?.range.start, { line: 4, character: 11 });
  });
});
