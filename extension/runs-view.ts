// The Runs view: run directories with status, iteration and duration, time-travel branches under the
// run they branched from; selecting one opens it. A connected server shows first, its runs under it
// (and not again as directories). A checkpoint change re-reads that run's directory only
// (RunCatalog.reread) and redraws its row only, off the watcher's event: changes are coalesced, and
// the whole list is listed again only when a run appeared, went, or moved in the tree.
import path from 'node:path';
import * as vscode from 'vscode';
import type { RemoteServer } from './remote-server';
import { describeRemoteRun, remoteRunLabel } from './remote-runs-model';
import { describeRun, runLabel, runTree, usageDetail, type RunNode, type ServedRuns } from './runs-model';
import { hasEnded, isResumable, type RunSummary } from '../host/run-directory/run-summary';
import { RunCatalog } from '../host/run-directory/run-catalog';
import { RUN_CHECKPOINT_GLOB } from '../host/run-directory/run-reader';
import type { PipelineSummary } from '../host/protocol/serve-api';

const STATUS_ICONS: Readonly<Record<RunSummary['status'], string>> = {
  running: 'sync~spin',
  interrupted: 'debug-disconnect',
  cancelled: 'debug-pause',
  success: 'pass',
  fail: 'error',
  unreadable: 'warning',
};

const REFRESH_COALESCE_MS = 150;

/**
 * A local run's row: one object per run directory for as long as the view lists it, since VS Code
 * redraws a row by the element it was handed; an update changes `run` in place. Commands handed the
 * element read its `run` (run-pickers.ts runDirectoryOf).
 */
interface LocalRow {
  readonly kind: 'local';
  run: RunSummary;
  branches: readonly RunNode[];
}

type RunsElement = LocalRow | { readonly kind: 'server' } | { readonly kind: 'remote'; readonly run: PipelineSummary };

export class RunsTreeProvider implements vscode.TreeDataProvider<RunsElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunsElement[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly catalog: RunCatalog;
  private readonly watcher = vscode.workspace.createFileSystemWatcher(RUN_CHECKPOINT_GLOB);
  /** The rows of the last listing, by resolved run directory. */
  private readonly rows = new Map<string, LocalRow>();
  /** Run directories a watcher named since the last update. */
  private readonly touched = new Set<string>();
  /** The next update lists every run again (a manual refresh, the server's list changed). */
  private relist = false;
  private pendingUpdate: NodeJS.Timeout | undefined;
  private updating: Promise<void> = Promise.resolve();

  /** `onRead` (a test's): called with each run directory summarized. */
  constructor(
    private readonly runRoots: () => string[],
    private readonly remote: RemoteServer,
    onRead?: (directory: string) => void,
  ) {
    this.catalog = new RunCatalog(onRead);
    const checkpointChanged = (uri: vscode.Uri) => {
      const directory = this.catalog.fileChanged(uri.fsPath, this.runRoots());
      if (!directory) return;
      this.touched.add(directory);
      this.schedule();
    };
    this.watcher.onDidCreate(checkpointChanged);
    this.watcher.onDidChange(checkpointChanged);
    this.watcher.onDidDelete(checkpointChanged);
  }

  /** Lists the runs again soon, checking every run directory for a change (a run ended, a manual refresh). */
  refresh(): void {
    this.catalog.recheckAll();
    this.redraw();
  }

  /** Draws the whole list again soon from what is known (the connected server's list changed): no run directory is read for it. */
  redraw(): void {
    this.relist = true;
    this.schedule();
  }

  /**
   * A run writes its checkpoint at node steps, and the events of one burst (several runs, a fan-out)
   * come down to one update, so a right-click lands on rows that stay put.
   */
  private schedule(): void {
    this.pendingUpdate ??= setTimeout(() => {
      this.pendingUpdate = undefined;
      this.updating = this.updating.then(() => this.update());
    }, REFRESH_COALESCE_MS);
  }

  /** Redraws the rows of the runs the watcher named, or the whole list when one of them is new, gone or moved in the tree. */
  private async update(): Promise<void> {
    const directories = [...this.touched];
    this.touched.clear();
    if (this.relist) return this.fireRelist();
    const summaries = await this.catalog.reread(directories);
    const updates: [LocalRow, RunSummary][] = [];
    for (const [directory, summary] of summaries) {
      const row = this.rows.get(path.resolve(directory));
      if (!row || !summary || !samePlace(row.run, summary)) return this.fireRelist();
      // The same summary object: the run's files did not move (an event of a sub-pipeline's checkpoint, a watcher's echo).
      if (summary !== row.run) updates.push([row, summary]);
    }
    for (const [row, summary] of updates) row.run = summary;
    if (updates.length > 0) this.changed.fire(updates.map(([row]) => row));
  }

  private fireRelist(): void {
    this.relist = false;
    this.changed.fire(undefined);
  }

  async getChildren(element?: RunsElement): Promise<RunsElement[]> {
    if (element?.kind === 'server') {
      const state = this.remote.server?.state;
      return state?.kind === 'listed' ? state.runs.map((run) => ({ kind: 'remote', run })) : [];
    }
    if (element?.kind === 'local') return element.branches.map((node) => this.rowOf(node));
    if (element) return [];
    const listed = new Set<string>();
    const local = runTree(await this.catalog.list(this.runRoots()), this.servedRuns()).map((node) => this.rowOf(node, listed));
    for (const directory of this.rows.keys()) if (!listed.has(directory)) this.rows.delete(directory);
    return this.remote.server ? [{ kind: 'server' }, ...local] : local;
  }

  /**
   * The row of `node`'s run: the same object as before when it was listed before. A listing
   * (`listing` set, collecting the directories of the rows under it) brings the rows up to date; a
   * row's children are only looked up, as a row may be newer than the listing that placed them.
   */
  private rowOf(node: RunNode, listing?: Set<string>): LocalRow {
    const directory = path.resolve(node.run.directory);
    const row = this.rows.get(directory);
    if (row && !listing) return row;
    if (listing) {
      listing.add(directory);
      for (const branch of node.branches) this.rowOf(branch, listing);
    }
    if (!row) {
      const created: LocalRow = { kind: 'local', run: node.run, branches: node.branches };
      this.rows.set(directory, created);
      return created;
    }
    row.run = node.run;
    row.branches = node.branches;
    return row;
  }

  /** The runs the connected server lists: shown under it, so their run directories are not listed again. */
  private servedRuns(): ServedRuns {
    const state = this.remote.server?.state;
    const runs = state?.kind === 'listed' ? state.runs : [];
    return { ids: new Set(runs.map((run) => run.id)), directories: new Set(runs.map((run) => path.resolve(run.logsRoot))) };
  }

  dispose(): void {
    clearTimeout(this.pendingUpdate);
    this.watcher.dispose();
    this.changed.dispose();
  }

  getTreeItem(element: RunsElement): vscode.TreeItem {
    switch (element.kind) {
      case 'local':
        return localRunItem(element);
      case 'remote':
        return remoteRunItem(element.run);
      case 'server':
        return this.serverItem();
    }
  }

  private serverItem(): vscode.TreeItem {
    const server = this.remote.server;
    const item = new vscode.TreeItem(`Server ${server?.client.url ?? ''}`, vscode.TreeItemCollapsibleState.Expanded);
    const state = server?.state;
    item.description = state?.kind === 'unreachable' ? 'unreachable' : `${state?.runs.length ?? 0} run(s)`;
    item.tooltip = state?.kind === 'unreachable' ? state.problem : 'Runs on this attractor serve server, refreshed every 2 s';
    item.iconPath = new vscode.ThemeIcon(state?.kind === 'unreachable' ? 'debug-disconnect' : 'remote');
    item.contextValue = 'attractorServer';
    item.id = `server:${server?.client.url ?? ''}`;
    return item;
  }
}

/** Whether a run re-read keeps its place in the tree: the same start (top rows are newest first), branch point and server. */
function samePlace(before: RunSummary, after: RunSummary): boolean {
  return before.startedAt === after.startedAt && before.servedId === after.servedId && before.branch?.parent === after.branch?.parent && before.branch?.step === after.branch?.step;
}

function localRunItem({ run, branches }: LocalRow): vscode.TreeItem {
  const item = new vscode.TreeItem(runLabel(run), branches.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.description = describeRun(run);
  const origin = run.branch ? `branched from \`${run.branch.parent}\` before ${run.branch.nodeId}${run.branch.visit !== undefined ? `@${run.branch.visit}` : ''} (step ${run.branch.step})` : '';
  const served = run.servedId ? `served by \`attractor serve\` as ${run.servedId}` : '';
  item.tooltip = new vscode.MarkdownString([`**${run.name}**`, run.sourcePath ? `pipeline: \`${run.sourcePath}\`` : '', `directory: \`${run.directory}\``, origin, served, run.usage ? usageDetail(run.usage) : '', run.status === 'unreadable' ? run.problem : ''].filter(Boolean).join('\n\n'));
  item.iconPath = new vscode.ThemeIcon(STATUS_ICONS[run.status]);
  // Context menus read these: `.resumable` offers Resume run, `.ended` Re-run from….
  item.contextValue = ['attractorRun', ...(isResumable(run.status) ? ['resumable'] : []), ...(hasEnded(run.status) ? ['ended'] : [])].join('.');
  item.resourceUri = vscode.Uri.file(run.directory);
  item.command = { command: 'attractor.openRun', title: 'Open run', arguments: [run.directory] };
  item.id = path.resolve(run.directory);
  return item;
}

function remoteRunItem(run: PipelineSummary): vscode.TreeItem {
  const item = new vscode.TreeItem(remoteRunLabel(run), vscode.TreeItemCollapsibleState.None);
  item.description = describeRemoteRun(run);
  item.tooltip = new vscode.MarkdownString([`**${run.id}**`, run.sourcePath ? `pipeline: \`${run.sourcePath}\`` : '', `run directory (on the server): \`${run.logsRoot}\``, `started ${run.createdAt}`].filter(Boolean).join('\n\n'));
  const icon = { running: run.pendingQuestions > 0 ? 'question' : 'sync~spin', success: 'pass', fail: 'error', cancelled: 'circle-slash', interrupted: STATUS_ICONS.interrupted, queued: 'watch' } as const;
  item.iconPath = new vscode.ThemeIcon(icon[run.status]);
  item.contextValue = run.status === 'running' || run.status === 'queued' ? 'attractorRemoteRun.running' : 'attractorRemoteRun';
  item.command = { command: 'attractor.openRemoteRun', title: 'Follow run', arguments: [run.id] };
  item.id = `remote:${run.id}`;
  return item;
}
