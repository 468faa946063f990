// "Open example pipeline" as the walkthrough runs it: bundled as the extension bundles it, with
// `vscode` resolved to the fake (test/extension/chat/fake-vscode.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, test } from 'node:test';
import type { registerOpenExample as RegisterOpenExample } from '../../extension/open-example';
import { bundleWithFakeVscode } from './fake-vscode-bundle';
import { Uri, ViewColumn, type FakeVscodeState } from './chat/fake-vscode';
import { repoRoot } from './chat/chat-fakes';

const state: FakeVscodeState = { workspaceRoot: '', trusted: true, saveTarget: undefined, tools: new Map(), participants: new Map(), commands: new Map(), shownDocuments: [] };
const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-open-example-'));
let openExample: () => Promise<unknown>;

before(async () => {
  (globalThis as unknown as { fakeVscode: FakeVscodeState }).fakeVscode = state;
  const { registerOpenExample } = await bundleWithFakeVscode<{ registerOpenExample: typeof RegisterOpenExample }>(path.join(repoRoot, 'extension/open-example.ts'));
  registerOpenExample({ extensionUri: Uri.file(repoRoot), subscriptions: [] } as unknown as Parameters<typeof RegisterOpenExample>[0], Uri.file(storage) as unknown as Parameters<typeof RegisterOpenExample>[1]);
  openExample = async () => state.commands.get('attractor.openExample')?.();
});

test('from the walkthrough (a Welcome page, not a text editor), the example opens beside it, pinned, so the guide stays', async () => {
  state.activeTab = 'welcome';
  await openExample();
  assert.deepEqual(state.shownDocuments, [path.join(storage, 'human-review.dot')]);
  assert.deepEqual(state.shownOptions, [{ preview: false, viewColumn: ViewColumn.Beside }]);
  for (const name of ['human-review.dot', 'human-review.scripted.json']) {
    assert.equal(fs.readFileSync(path.join(storage, name), 'utf8'), fs.readFileSync(path.join(repoRoot, 'examples', name), 'utf8'), `${name} is copied out of the workspace`);
  }
});

test('from a text editor (the command palette), it opens in that group, pinned', async () => {
  state.activeTab = 'text';
  state.shownOptions = [];
  await openExample();
  assert.deepEqual(state.shownOptions, [{ preview: false }]);
});
