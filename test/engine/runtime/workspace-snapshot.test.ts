import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, it, mock } from 'node:test';
import type { FileChange, WorkspaceStore } from '../../../engine/runtime/workspace-snapshot';
import { openWorkspaceStore } from '../../../engine/runtime/workspace-snapshot';
import { runDot } from './harness';

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


  it('an edit made while git adds (same size, modification time put back) is stored by the next snapshot', async () => {
    const cwd = workspace({ 'a.txt': 'one\n' });
    const store = open(cwd);
    await startOfSecond();
    fs.utimesSync(at(cwd, 'a.txt'), EPOCH_S, EPOCH_S);
    const realSpawnSync = childProcess.spawnSync;
    let edited = false;
    const spawnSync = mock.method(childProcess, 'spawnSync', ((command: string, args: readonly string[], options: childProcess.SpawnSyncOptions) => {
      const result = realSpawnSync(command, args, options);
      if (!edited && args.includes('add')) {
        edited = true;
        fs.writeFileSync(at(cwd, 'a.txt'), 'two\n');
        fs.utimesSync(at(cwd, 'a.txt'), EPOCH_S, EPOCH_S);
      }
      return result;
    }) as typeof childProcess.spawnSync);
    const first = store.take();
    spawnSync.mock.restore();
    assert.ok(edited);
    const second = store.take();
    assert.equal(store.fileAt(first, 'a.txt'), 'one\n');
    assert.equal(store.fileAt(second, 'a.txt'), 'two\n');
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
    store.take();
    store.checkout(first);
    assert.equal(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8'), 'one\n');
    assert.ok(!fs.existsSync(path.join(cwd, 'new.txt')));
    assert.ok(fs.existsSync(path.join(cwd, 'debug.log')));
    assert.equal(store.take(), first);
  });
});

/** How many lstat calls `work` made. */
async function lstatsDuring<T>(work: () => Promise<T>): Promise<{ result: T; lstats: number }> {
  const lstat = mock.method(fs, 'lstatSync');
  try {
    const result = await work();
    return { result, lstats: lstat.mock.callCount() };
  } finally {
    lstat.mock.restore();
  }
}

/**
 * A store at a node boundary where the change watch vouches for the last snapshot: the next
 * boundary with nothing changed makes one lstat (the workspace's own, still in place), not one per
 * path, so a change after this is seen only if the watch hears it.
 */
async function vouchedStore(cwd: string): Promise<{ store: WorkspaceStore; first: string }> {
  const store = open(cwd);
  const first = await settledSnapshot(store);
  assert.equal(await store.takeAtBoundary(), first, 'the stat pass confirms the snapshot');
  const silent = await lstatsDuring(() => store.takeAtBoundary());
  assert.deepEqual(silent, { result: first, lstats: 1 }, 'a boundary with nothing changed is answered by the watch alone');
  return { store, first };
}

interface ChangeCase {
  readonly name: string;
  readonly files: Record<string, string>;
  readonly change: (cwd: string) => void;
  readonly expected: FileChange[];
}

const changeCases: ChangeCase[] = [
  { name: 'a file added at the top level', files: { 'a.txt': 'a\n' }, change: (cwd) => fs.writeFileSync(at(cwd, 'b.txt'), 'b\n'), expected: [{ kind: 'added', path: 'b.txt' }] },
  {
    name: 'an edit of the same size with the modification time put back to the same second',
    files: { 'src/a.txt': 'one\n' },
    change: (cwd) => {
      fs.writeFileSync(at(cwd, 'src/a.txt'), 'two\n');
      fs.utimesSync(at(cwd, 'src/a.txt'), EPOCH_S, EPOCH_S);
    },
    expected: [{ kind: 'changed', path: 'src/a.txt' }],
  },
  { name: 'a file deleted', files: { 'a.txt': 'a\n', 'src/b.txt': 'b\n' }, change: (cwd) => fs.rmSync(at(cwd, 'src/b.txt')), expected: [{ kind: 'deleted', path: 'src/b.txt' }] },
  {
    name: 'a file renamed into another directory',
    files: { 'src/a.txt': 'a\n', 'lib/keep.txt': 'k\n' },
    change: (cwd) => fs.renameSync(at(cwd, 'src/a.txt'), at(cwd, 'lib/a.txt')),
    expected: [
      { kind: 'added', path: 'lib/a.txt' },
      { kind: 'deleted', path: 'src/a.txt' },
    ],
  },
  {
    name: 'new nested directories with a file',
    files: { 'a.txt': 'a\n' },
    change: (cwd) => {
      fs.mkdirSync(at(cwd, 'x/y/z'), { recursive: true });
      fs.writeFileSync(at(cwd, 'x/y/z/deep.txt'), 'deep\n');
    },
    expected: [{ kind: 'added', path: 'x/y/z/deep.txt' }],
  },
  {
    name: 'a directory and its files deleted',
    files: { 'a.txt': 'a\n', 'old/one.txt': '1\n', 'old/sub/two.txt': '2\n' },
    change: (cwd) => fs.rmSync(at(cwd, 'old'), { recursive: true }),
    expected: [
      { kind: 'deleted', path: 'old/one.txt' },
      { kind: 'deleted', path: 'old/sub/two.txt' },
    ],
  },
  { name: 'a symbolic link added', files: { 'a.txt': 'a\n' }, change: (cwd) => fs.symlinkSync('a.txt', at(cwd, 'link')), expected: [{ kind: 'added', path: 'link' }] },
  {
    name: 'a symbolic link pointed elsewhere (a target of the same length)',
    files: { 'a.txt': 'a\n', 'b.txt': 'b\n' },
    change: (cwd) => {
      fs.rmSync(at(cwd, 'link'));
      fs.symlinkSync('b.txt', at(cwd, 'link'));
    },
    expected: [{ kind: 'changed', path: 'link' }],
  },
  { name: 'a file made executable', files: { 'run.sh': 'echo hi\n' }, change: (cwd) => fs.chmodSync(at(cwd, 'run.sh'), 0o755), expected: [{ kind: 'changed', path: 'run.sh' }] },
  {
    name: 'a file that is not ignored appearing deep inside a directory of ignored files',
    files: { '.gitignore': '*.log\n', 'logs/deep/old.log': 'x\n' },
    change: (cwd) => fs.writeFileSync(at(cwd, 'logs/deep/report.txt'), 'kept\n'),
    expected: [{ kind: 'added', path: 'logs/deep/report.txt' }],
  },
];

describe('workspace store: the change watch between node boundaries', () => {
  afterEach(() => mock.restoreAll());

  for (const { name, files, change, expected } of changeCases) {
    it(`sees ${name}`, async () => {
      const cwd = workspace(files);
      for (const file of Object.keys(files)) fs.utimesSync(at(cwd, file), EPOCH_S, EPOCH_S);
      // The symbolic-link case starts with a link to a.txt.
      if (name.includes('pointed elsewhere')) fs.symlinkSync('a.txt', at(cwd, 'link'));
      const { store, first } = await vouchedStore(cwd);
      change(cwd);
      const second = await store.takeAtBoundary();
      store.close();
      assert.deepEqual(store.changes(first, second), expected);
    });
  }

  it('sees a file written in the same tick as the boundary (the boundary waits for the event loop to read the events)', async () => {
    const cwd = workspace({ 'a.txt': 'a\n' });
    const { store, first } = await vouchedStore(cwd);
    fs.writeFileSync(at(cwd, 'a.txt'), 'b\n');
    const second = await store.takeAtBoundary();
    store.close();
    assert.deepEqual(store.changes(first, second), [{ kind: 'changed', path: 'a.txt' }]);
  });

  it('sees an edit inside a directory that appeared after the watch started', async () => {
    const cwd = workspace({ 'a.txt': 'a\n' });
    const { store } = await vouchedStore(cwd);
    fs.mkdirSync(at(cwd, 'fresh'));
    fs.writeFileSync(at(cwd, 'fresh/f.txt'), 'one\n');
    fs.utimesSync(at(cwd, 'fresh/f.txt'), EPOCH_S, EPOCH_S);
    const withDirectory = await store.takeAtBoundary();
    // Past the racy window: git again (a fingerprint to trust), then the stat pass confirms it.
    await settle();
    assert.equal(await store.takeAtBoundary(), withDirectory);
    assert.equal(await store.takeAtBoundary(), withDirectory);
    assert.equal((await lstatsDuring(() => store.takeAtBoundary())).lstats, 1, 'the new directory is watched now');
    fs.writeFileSync(at(cwd, 'fresh/f.txt'), 'two\n');
    fs.utimesSync(at(cwd, 'fresh/f.txt'), EPOCH_S, EPOCH_S);
    const edited = await store.takeAtBoundary();
    store.close();
    assert.deepEqual(store.changes(withDirectory, edited), [{ kind: 'changed', path: 'fresh/f.txt' }]);
  });

  it('a write through a hard link outside the workspace raises no event there, so a hard-linked workspace is left to the stat pass', async () => {
    const cwd = workspace({ 'shared.txt': 'one\n' });
    const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-ws-link-')), 'other-name.txt');
    fs.linkSync(at(cwd, 'shared.txt'), outside);
    const store = open(cwd);
    const first = await settledSnapshot(store);
    assert.equal(await store.takeAtBoundary(), first);
    assert.ok((await lstatsDuring(() => store.takeAtBoundary())).lstats > 1, 'the stat pass runs at every boundary');
    fs.writeFileSync(outside, 'two\n');
    const second = await store.takeAtBoundary();
    store.close();
    assert.deepEqual(store.changes(first, second), [{ kind: 'changed', path: 'shared.txt' }]);
  });

  it('a watch that reports an error hands every later boundary to the stat pass, which still sees changes', async () => {
    const watchers: fs.FSWatcher[] = [];
    const realWatch = fs.watch;
    mock.method(fs, 'watch', (...args: Parameters<typeof fs.watch>) => {
      const watcher = realWatch(...args);
      watchers.push(watcher);
      return watcher;
    });
    const cwd = workspace({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
    const { store, first } = await vouchedStore(cwd);
    watchers[0]?.emit('error', new Error('inotify queue overflow'));
    assert.ok((await lstatsDuring(() => store.takeAtBoundary())).lstats > 1);
    await settle();
    assert.ok((await lstatsDuring(() => store.takeAtBoundary())).lstats > 1, 'no watch vouches any more');
    fs.writeFileSync(at(cwd, 'src/b.txt'), 'B\n');
    const second = await store.takeAtBoundary();
    store.close();
    assert.deepEqual(store.changes(first, second), [{ kind: 'changed', path: 'src/b.txt' }]);
  });

  it('when no watch can be set up (the inotify watch limit), the stat pass does the work', async () => {
    mock.method(fs, 'watch', () => {
      throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
    });
    const cwd = workspace({ 'a.txt': 'a\n' });
    const store = open(cwd);
    const first = await settledSnapshot(store);
    assert.equal(await store.takeAtBoundary(), first);
    assert.ok((await lstatsDuring(() => store.takeAtBoundary())).lstats > 1);
    fs.writeFileSync(at(cwd, 'a.txt'), 'b\n');
    const second = await store.takeAtBoundary();
    store.close();
    assert.deepEqual(store.changes(first, second), [{ kind: 'changed', path: 'a.txt' }]);
  });

  it('a run closes every watch it opened', async () => {
    const watchers: fs.FSWatcher[] = [];
    const closed = new Set<fs.FSWatcher>();
    const realWatch = fs.watch;
    mock.method(fs, 'watch', (...args: Parameters<typeof fs.watch>) => {
      const watcher = realWatch(...args);
      watchers.push(watcher);
      watcher.on('close', () => closed.add(watcher));
      return watcher;
    });
    const pause = Array.from({ length: 4 }, (_, i) => `  p${i} [shape=parallelogram, tool_command="sleep 0.1"]`).join('\n');
    const harness = await runDot(`digraph w {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n${pause}\n  start -> p0 -> p1 -> p2 -> p3 -> done\n}`, { files: { 'a.txt': 'a\n' } });
    assert.equal(harness.result.status, 'success', harness.result.failureReason);
    assert.ok(watchers.length > 0, 'the run watched its workspace');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(closed.size, watchers.length);
  });
});
