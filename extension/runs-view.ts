// The Runs view: run directories with status, iteration and duration; selecting one opens it.
import path from 'node:path';
import * as vscode from 'vscode';
import { describeRun, listRuns, type RunSummary, usageDetail } from './runs-model';

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
    item.tooltip = new vscode.MarkdownString([`**${run.name}**`, run.sourcePath ? `pipeline: \`${run.sourcePath}\`` : '', `directory: \`${run.directory}\``, run.usage ? usageDetail(run.usage) : '', run.problem ?? ''].filter(Boolean).join('\n\n'));
    item.iconPath = new vscode.ThemeIcon(run.status === 'succeeded' ? 'pass' : run.status === 'failed' ? 'error' : run.status === 'running' ? 'debug-pause' : 'warning');
    item.contextValue = run.status === 'running' ? 'attractorRun.resumable' : 'attractorRun';
    item.resourceUri = vscode.Uri.file(run.directory);
    item.command = { command: 'attractor.openRun', title: 'Open run', arguments: [run.directory] };
    item.id = path.resolve(run.directory);
    return item;
  }
}
