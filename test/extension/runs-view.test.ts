// The Runs view as VS Code drives it (the extension's module bundled with the fake `vscode`):
// through the tree data provider's own API — getChildren, getTreeItem, onDidChangeTreeData — and
// the file watcher's events. A checkpoint change re-reads that run's directory only and redraws that
// row only (the element VS Code was handed, so it redraws it in place); a burst of changes is one
// update; a run that appears or goes redraws the list, reading only what is new.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type * as RunsView from '../../extension/runs-view';
import type { RemoteServer } from '../../extension/remote-server';
import { preparePipeline } from '../../engine/prepare';
import { EventBus } from '../../engine/runtime/events';
import { AutoApproveInterviewer } from '../../engine/runtime/interviewer';
import { runPipeline } from '../../engine/runtime/runner';
import { ScriptedBackend } from '../../engine/runtime/scripted';
import { runFile } from '../../engine/runtime/run-layout';
import { bundleWithFakeVscode } from './fake-vscode-bundle';
import type { FakeVscodeState } from './chat/fake-vscode';
import { repoRoot } from './chat/chat-fakes';

const pipeline = `digraph view {
  start [shape=Mdiamond]
  plan [shape=diamond]
  done [shape=Msquare]
  start -> plan -> done
}`;

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

describe('the Runs view (tree data provider, fake vscode)', () => {
  const state: FakeVscodeState = { workspaceRoot: '', trusted: true, saveTarget: undefined, tools: new Map(), participants: new Map(), commands: new Map(), shownDocuments: [] };
  let views: typeof RunsView;
  let template = '';

  before(async () => {
    (globalThis as unknown as { fakeVscode: FakeVscodeState }).fakeVscode = state;
    views = await bundleWithFakeVscode<typeof RunsView>(path.join(repoRoot, 'extension/runs-view.ts'));
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'runs-view-template-'));
    const graph = preparePipeline(pipeline).graph;
    assert.ok(graph);
    template = path.join(work, 'run');
    await runPipeline({ graph, source: pipeline, cwd: work, logsRoot: template, backend: new ScriptedBackend({ llm: {}, human: {} }), interviewer: new AutoApproveInterviewer(), events: new EventBus(), workspaceSnapshots: false });
  });

  /** A copy of the finished run under `root`, started `second` seconds into 2026. */
  const copyRun = (root: string, name: string, second: number): string => {
    const directory = path.join(root, name);
    fs.cpSync(template, directory, { recursive: true });
    setCheckpoint(directory, { startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString() });
    return directory;
  };
  const setCheckpoint = (directory: string, fields: Record<string, unknown>): void => {
    const file = runFile(directory, 'checkpoint');
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), ...fields }));
  };

  it('a checkpoint change redraws that run’s row only, after reading that run only; a burst is one update', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'runs-view-'));
    const [older, middle, newer] = [copyRun(root, 'a', 1), copyRun(root, 'b', 2), copyRun(root, 'c', 3)];
    const reads: string[] = [];
    const provider = new views.RunsTreeProvider(() => [root], { server: undefined } as unknown as RemoteServer, (directory) => reads.push(directory));
    const fired: unknown[] = [];
    provider.onDidChangeTreeData((change) => fired.push(change));
    const watcher = state.watchers?.at(-1);
    assert.ok(watcher);
    try {
      const rows = await provider.getChildren();
      assert.deepEqual(rows.map((row) => (row.kind === 'local' ? path.basename(row.run.directory) : row.kind)), ['c', 'b', 'a'], 'newest first');
      assert.deepEqual([...reads].sort(), [newer, middle, older].sort(), 'the first listing reads every run');
      assert.equal((provider.getTreeItem(rows[1]!).iconPath as { id: string }).id, 'pass');

      reads.length = 0;
      setCheckpoint(middle, { status: 'fail', failureReason: 'it broke' });
      const checkpoint = { fsPath: runFile(middle, 'checkpoint') } as never;
      watcher.changed.fire(checkpoint);
      watcher.changed.fire(checkpoint);
      watcher.created.fire(checkpoint);
      await until(() => fired.length > 0, 'the update');
      await settle();
      assert.equal(fired.length, 1, 'three events of one burst: one update');
      const [change] = fired as unknown[][];
      assert.ok(Array.isArray(change) && change.length === 1, `the changed row only, not the whole list: ${JSON.stringify(change)}`);
      assert.equal(change[0], rows[1], 'the very element VS Code holds for that run, so VS Code redraws it in place');
      assert.deepEqual(reads, [middle], 'only the changed run was read');
      const item = provider.getTreeItem(rows[1]!);
      assert.equal((item.iconPath as { id: string }).id, 'error');
      assert.match(String(item.description), /^failed/);
      assert.equal((provider.getTreeItem(rows[0]!).iconPath as { id: string }).id, 'pass', 'the other rows are as they were');

      // In one burst, an event for a run whose own files did not change (a sub-pipeline's checkpoint, a
      // watcher's echo) and a change of another: the first is neither read nor redrawn.
      reads.length = 0;
      fs.mkdirSync(path.join(older, 'sub'));
      fs.writeFileSync(path.join(older, 'sub', 'checkpoint.json'), '{}');
      watcher.changed.fire({ fsPath: path.join(older, 'sub', 'checkpoint.json') } as never);
      setCheckpoint(middle, { status: 'cancelled' });
      watcher.changed.fire(checkpoint);
      await until(() => fired.length > 1, 'the second update');
      assert.deepEqual(reads, [middle], 'the unchanged run is not read again: its stamp did not move');
      assert.deepEqual(fired[1], [rows[1]], 'and not redrawn');
      assert.equal((provider.getTreeItem(rows[1]!).iconPath as { id: string }).id, 'debug-pause');

      // A new run: the whole list is drawn again, reading only the new run; the other rows keep their elements.
      reads.length = 0;
      fired.length = 0;
      const newest = copyRun(root, 'd', 4);
      watcher.created.fire({ fsPath: runFile(newest, 'checkpoint') } as never);
      await until(() => fired.length > 0, 'the relisting');
      assert.deepEqual(fired, [undefined], 'a new run redraws the whole list');
      const relisted = await provider.getChildren();
      assert.deepEqual(relisted.map((row) => (row.kind === 'local' ? path.basename(row.run.directory) : row.kind)), ['d', 'c', 'b', 'a']);
      assert.deepEqual(relisted.slice(1), rows, 'the rows listed before are the same elements');
      assert.deepEqual(reads, [newest]);

      // A run removed: the whole list again, without it.
      fired.length = 0;
      fs.rmSync(older, { recursive: true });
      watcher.deleted.fire({ fsPath: runFile(older, 'checkpoint') } as never);
      await until(() => fired.length > 0, 'the relisting after a removal');
      assert.deepEqual(fired, [undefined]);
      assert.deepEqual((await provider.getChildren()).map((row) => (row.kind === 'local' ? path.basename(row.run.directory) : row.kind)), ['d', 'c', 'b']);
    } finally {
      provider.dispose();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('a manual refresh rechecks every run by its stamp and reads only the ones that changed', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'runs-view-'));
    const directories = [copyRun(root, 'a', 1), copyRun(root, 'b', 2), copyRun(root, 'c', 3)];
    const reads: string[] = [];
    const provider = new views.RunsTreeProvider(() => [root], { server: undefined } as unknown as RemoteServer, (directory) => reads.push(directory));
    const fired: unknown[] = [];
    provider.onDidChangeTreeData((change) => fired.push(change));
    try {
      await provider.getChildren();
      reads.length = 0;
      // Changed where no watcher saw it (another machine, a watcher that dropped the event).
      setCheckpoint(directories[0]!, { status: 'cancelled' });
      provider.refresh();
      await until(() => fired.length > 0, 'the refresh');
      const rows = await provider.getChildren();
      assert.deepEqual(reads, [directories[0]]);
      const cancelled = rows.find((row) => row.kind === 'local' && row.run.directory === directories[0]);
      assert.ok(cancelled);
      assert.equal((provider.getTreeItem(cancelled).iconPath as { id: string }).id, 'debug-pause');
    } finally {
      provider.dispose();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
