// The server and its checker worker keep V8's compiled code between runs (host/code-cache.ts,
// 'growing'): written when the server shuts down, read by the next one, written again when a
// session compiled more than it read; a cache V8 refuses only means compiling as usual.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { CompletionRequest } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, fixtureText, LspClient, positionOf } from './lsp-client';

const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-cache-'));
const directory = path.join(cacheHome, 'attractor', 'compile-cache', `${process.version}-${process.arch}`);
const cacheOf = (bundle: string): string => path.join(directory, fs.readdirSync(directory).find((f) => f.startsWith(`${bundle}-`)) ?? `${bundle}-missing`);
const uri = 'file:///compile-cache/child.dot';
const text = fixtureText('child.dot');

/** A session in a fresh server: the document's diagnostics and, if asked, a completion in it. */
async function session(complete: boolean): Promise<unknown> {
  const client = await LspClient.start();
  try {
    await client.open(uri, text);
    const completion = complete ? await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(text, '[', 1) }) : undefined;
    return { diagnostics: (await client.diagnosticsFor(uri)).diagnostics, completion };
  } finally {
    await client.stop();
  }
}

describe('language server compile cache', () => {
  before(() => {
    ensureTestBundle();
    // The servers this file starts inherit it.
    process.env.XDG_CACHE_HOME = cacheHome;
  });

  it('leaves the compiled code of the server and its checker at shutdown, and answers the same with it', async () => {
    const first = await session(false);
    assert.deepEqual(fs.readdirSync(directory).map((f) => f.replace(/-\d+-\d+\.v8$/, '')).sort(), ['language-server-checker', 'language-server-main']);
    const before = fs.statSync(cacheOf('language-server-main')).size;
    const withCompletion = (await session(true)) as { diagnostics: unknown; completion: unknown };
    assert.deepEqual(withCompletion.diagnostics, (first as { diagnostics: unknown }).diagnostics);
    assert.ok(fs.statSync(cacheOf('language-server-main')).size > before, 'a session that completed for the first time compiled more, and keeps it');
    assert.deepEqual(await session(true), withCompletion);
  });

  it('keeps the caches of the last few other builds of a bundle (checkouts in use at once), not older ones', async () => {
    // Written again below: this build's cache is taken away first.
    fs.rmSync(cacheOf('language-server-main'));
    const earlier = [1, 2, 3, 4, 5].map((k) => path.join(directory, `language-server-main-${k}-${k}.v8`));
    for (const [k, file] of earlier.entries()) {
      fs.writeFileSync(file, 'another build');
      fs.utimesSync(file, new Date(Date.UTC(2026, 0, 1 + k)), new Date(Date.UTC(2026, 0, 1 + k)));
    }
    await session(false);
    assert.deepEqual(
      earlier.map((file) => fs.existsSync(file)),
      [false, false, true, true, true],
      'the three last written other builds stay beside the one written now',
    );
    for (const file of earlier) fs.rmSync(file, { force: true });
  });

  it('answers the same from a corrupt cache, and replaces it', async () => {
    const expected = await session(true);
    for (const bundle of ['language-server-main', 'language-server-checker']) fs.writeFileSync(cacheOf(bundle), 'not V8 code');
    assert.deepEqual(await session(true), expected);
    for (const bundle of ['language-server-main', 'language-server-checker']) assert.notEqual(fs.readFileSync(cacheOf(bundle), 'utf8'), 'not V8 code');
  });
});
