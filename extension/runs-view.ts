// The Runs view: run directories with status, iteration and duration; selecting one opens it.
import path from 'node:path';
import * as vscode from 'vscode';
import { describeRun, isResumable, listRuns, type RunSummary } from './runs-model';

const STATUS_ICONS: Readonly<Record<RunSummary['status'], string>> = {
  running: 'sync~spin',
  interrupted: 'debug-disconnect',
  cancelled: 'debug-pause',
  succeeded: 'pass',
  failed: 'error',
  unreadable: 'warning',
};

export class RunsTreeProvider implements vscode.TreeDataProvider<RunSummary> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly runRoots: () => string[]) {}

  refresh(): void {
    this.changed.fire();
  }

  getChildren(element?: RunSummary): RunSummary[] {
    if (element) return [];
    return this.runRoots().flatMap((root) => listRuns(root));
  }

  getTreeItem(run: RunSummary): vscode.TreeItem {
    const item = new vscode.TreeItem(run.graphName ?? run.name, vscode.TreeItemCollapsibleState.None);
    item.description = describeRun(run);
    item.tooltip = new vscode.MarkdownString([`**${run.name}**`, run.sourcePath ? `pipeline: \`${run.sourcePath}\`` : '', `directory: \`${run.directory}\``, run.problem ?? ''].filter(Boolean).join('\n\n'));
    item.iconPath = new vscode.ThemeIcon(STATUS_ICONS[run.status]);
    item.contextValue = isResumable(run.status) ? 'attractorRun.resumable' : 'attractorRun';
    item.resourceUri = vscode.Uri.file(run.directory);
    item.command = { command: 'attractor.openRun', title: 'Open run', arguments: [run.directory] };
    item.id = path.resolve(run.directory);
    return item;
  }
}
