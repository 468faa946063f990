import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { WorkspaceStore } from '../../../engine/runtime/workspace-snapshot';
import { openWorkspaceStore } from '../../../engine/runtime/workspace-snapshot';

function workspace(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-ws-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

function open(cwd: string): WorkspaceStore {
  const opened = openWorkspaceStore(path.join(cwd, '.run'), cwd);
  if (opened.kind !== 'open') throw new Error(opened.reason);
  return opened.store;
}

/** Lets the last writes leave git's racy window, so the next snapshot's stat pass is trusted. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 120));

/** A snapshot whose stat fingerprint vouches for the workspace as it is now. */
async function settledSnapshot(store: WorkspaceStore): Promise<string> {
  await settle();
  store.take();
  await settle();
  return store.take();
}

/** Whole seconds, so that an edit can put a file's modification time back exactly. */
const EPOCH_S = 1_700_000_000;

const at = (cwd: string, file: string) => path.join(cwd, file);

/** Waits until just past the clock's next whole second: what follows soon after happens within that second. */
const startOfSecond = () => new Promise((resolve) => setTimeout(resolve, 1050 - (Date.now() % 1000)));

describe('workspace store: snapshots see every change, however small', () => {
  it('an edit of the same size whose modification time is put back, within the second of its last change, is a new snapshot', async () => {
    const cwd = workspace({ 'a.txt': 'one\n' });
    const store = open(cwd);
    await startOfSecond();
    fs.utimesSync(at(cwd, 'a.txt'), EPOCH_S, EPOCH_S);
    const first = store.take();
    fs.writeFileSync(at(cwd, 'a.txt'), 'two\n');
    fs.utimesSync(at(cwd, 'a.txt'), EPOCH_S, EPOCH_S);
    const second = store.take();
    assert.deepEqual(store.changes(first, second), [{ kind: 'changed', path: 'a.txt' }]);
  });


  it('an unchanged workspace snapshots to the same tree; an edit of the same size to a new one', async () => {
    const cwd = workspace({ 'a.txt': 'one\n', 'src/b.txt': 'two\n' });
    const store = open(cwd);
    const first = await settledSnapshot(store);
    assert.equal(store.take(), first);
    fs.writeFileSync(path.join(cwd, 'src/b.txt'), 'TWO\n');
    const second = store.take();
    assert.notEqual(second, first);
    assert.deepEqual(store.changes(first, second), [{ kind: 'changed', path: 'src/b.txt' }]);
  });

  it('a file that is not ignored, appearing deep inside a directory of ignored files, is snapshotted', async () => {
    const cwd = workspace({ '.gitignore': '*.log\n', 'logs/deep/old.log': 'x\n' });
    const store = open(cwd);
    const first = await settledSnapshot(store);
    fs.writeFileSync(path.join(cwd, 'logs/deep/report.txt'), 'kept\n');
    const second = store.take();
    assert.deepEqual(store.changes(first, second), [{ kind: 'added', path: 'logs/deep/report.txt' }]);
  });

  it('restore puts files back and deletes those added since; ignored files stay', async () => {
    const cwd = workspace({ '.gitignore': '*.log\n', 'a.txt': 'one\n' });
    const store = open(cwd);
    const first = await settledSnapshot(store);
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'changed\n');
    fs.writeFileSync(path.join(cwd, 'new.txt'), 'new\n');
    fs.writeFileSync(path.join(cwd, 'debug.log'), 'log\n');
    store.restore(first);
    assert.equal(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8'), 'one\n');
    assert.ok(!fs.existsSync(path.join(cwd, 'new.txt')));
    assert.ok(fs.existsSync(path.join(cwd, 'debug.log')));
    assert.equal(store.take(), first);
  });
});
