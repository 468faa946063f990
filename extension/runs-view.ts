// The Runs view: run directories with status, iteration and duration; selecting one opens it. A
// connected server shows first, its runs under it.
import path from 'node:path';
import * as vscode from 'vscode';
import type { RemoteServer } from './remote-server';
import { describeRemoteRun, remoteRunLabel } from './remote-runs-model';
import { describeRun, hasEnded, isResumable, listRuns, type RunSummary, usageDetail } from './runs-model';
import type { PipelineSummary } from '../host/protocol/serve-api';

const STATUS_ICONS: Readonly<Record<RunSummary['status'], string>> = {
  running: 'sync~spin',
  interrupted: 'debug-disconnect',
  cancelled: 'debug-pause',
  succeeded: 'pass',
  failed: 'error',
  unreadable: 'warning',
};

const REFRESH_COALESCE_MS = 150;

type RunsElement = { readonly kind: 'local'; readonly run: RunSummary } | { readonly kind: 'server' } | { readonly kind: 'remote'; readonly run: PipelineSummary };

export class RunsTreeProvider implements vscode.TreeDataProvider<RunsElement> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly runRoots: () => string[],
    private readonly remote: RemoteServer,
  ) {}

  private pendingRefresh: NodeJS.Timeout | undefined;

  /**
   * Lists the runs again soon: a run writes its checkpoint at every node step, and the calls of one
   * burst (several runs, a fan-out) come down to one listing, so a right-click lands on rows that stay put.
   */
  refresh(): void {
    this.pendingRefresh ??= setTimeout(() => {
      this.pendingRefresh = undefined;
      this.changed.fire();
    }, REFRESH_COALESCE_MS);
  }

  getChildren(element?: RunsElement): RunsElement[] {
    if (element?.kind === 'server') {
      const state = this.remote.server?.state;
      return state?.kind === 'listed' ? state.runs.map((run) => ({ kind: 'remote', run })) : [];
    }
    if (element) return [];
    const local = this.runRoots().flatMap((root) => listRuns(root)).map((run): RunsElement => ({ kind: 'local', run }));
    return this.remote.server ? [{ kind: 'server' }, ...local] : local;
  }

  getTreeItem(element: RunsElement): vscode.TreeItem {
    switch (element.kind) {
      case 'local':
        return localRunItem(element.run);
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

function localRunItem(run: RunSummary): vscode.TreeItem {
  const item = new vscode.TreeItem(run.graphName ?? run.name, vscode.TreeItemCollapsibleState.None);
  item.description = describeRun(run);
  item.tooltip = new vscode.MarkdownString([`**${run.name}**`, run.sourcePath ? `pipeline: \`${run.sourcePath}\`` : '', `directory: \`${run.directory}\``, run.usage ? usageDetail(run.usage) : '', run.problem ?? ''].filter(Boolean).join('\n\n'));
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
  const icon = { running: run.pendingQuestions > 0 ? 'question' : 'sync~spin', success: 'pass', fail: 'error', cancelled: 'circle-slash' } as const;
  item.iconPath = new vscode.ThemeIcon(icon[run.status]);
  item.contextValue = run.status === 'running' ? 'attractorRemoteRun.running' : 'attractorRemoteRun';
  item.command = { command: 'attractor.openRemoteRun', title: 'Follow run', arguments: [run.id] };
  item.id = `remote:${run.id}`;
  return item;
}
