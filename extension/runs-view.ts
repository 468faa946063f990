// The Runs view: run directories with status, iteration and duration, time-travel branches under the
// run they branched from; selecting one opens it. A connected server shows first, its runs under it
// (and not again as directories). Runs are read again only where a checkpoint changed (RunCatalog).
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

/** A local row is a RunNode: commands handed the element read its `run` (main.ts runDirectoryOf). */
type RunsElement = ({ readonly kind: 'local' } & RunNode) | { readonly kind: 'server' } | { readonly kind: 'remote'; readonly run: PipelineSummary };

export class RunsTreeProvider implements vscode.TreeDataProvider<RunsElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly catalog = new RunCatalog();
  private readonly watcher = vscode.workspace.createFileSystemWatcher(RUN_CHECKPOINT_GLOB);

  constructor(
    private readonly runRoots: () => string[],
    private readonly remote: RemoteServer,
  ) {
    const checkpointChanged = (uri: vscode.Uri) => {
      this.catalog.fileChanged(uri.fsPath, this.runRoots());
      this.schedule();
    };
    this.watcher.onDidCreate(checkpointChanged);
    this.watcher.onDidChange(checkpointChanged);
    this.watcher.onDidDelete(checkpointChanged);
  }

  private pendingRefresh: NodeJS.Timeout | undefined;

  /** Lists the runs again soon, checking every run directory for a change (a run ended, a manual refresh, the server's list changed). */
  refresh(): void {
    this.catalog.recheckAll();
    this.schedule();
  }

  /**
   * A run writes its checkpoint at node steps, and the calls of one burst (several runs, a fan-out)
   * come down to one listing, so a right-click lands on rows that stay put.
   */
  private schedule(): void {
    this.pendingRefresh ??= setTimeout(() => {
      this.pendingRefresh = undefined;
      this.changed.fire();
    }, REFRESH_COALESCE_MS);
  }

  async getChildren(element?: RunsElement): Promise<RunsElement[]> {
    if (element?.kind === 'server') {
      const state = this.remote.server?.state;
      return state?.kind === 'listed' ? state.runs.map((run) => ({ kind: 'remote', run })) : [];
    }
    if (element?.kind === 'local') return element.branches.map((node) => ({ kind: 'local', ...node }));
    if (element) return [];
    const local = runTree(await this.catalog.list(this.runRoots()), this.servedRuns()).map((node): RunsElement => ({ kind: 'local', ...node }));
    return this.remote.server ? [{ kind: 'server' }, ...local] : local;
  }

  /** The runs the connected server lists: shown under it, so their run directories are not listed again. */
  private servedRuns(): ServedRuns {
    const state = this.remote.server?.state;
    const runs = state?.kind === 'listed' ? state.runs : [];
    return { ids: new Set(runs.map((run) => run.id)), directories: new Set(runs.map((run) => path.resolve(run.logsRoot))) };
  }

  dispose(): void {
    clearTimeout(this.pendingRefresh);
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

function localRunItem({ run, branches }: RunNode): vscode.TreeItem {
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
