// What the run commands share: trust, the run and visit pickers, and the arguments menus hand them.
import path from 'node:path';
import * as vscode from 'vscode';
import type { VisitTarget } from '../../engine/runtime/rerun';
import { listRuns } from '../../host/run-directory/run-catalog';
import type { RunSummaryStatus } from '../../host/run-directory/run-summary';
import type { Ctx } from '../ctx';
import { pickerLabel, rerunChoices, statusWord } from '../runs-model';

/** Runs start only in a trusted workspace; otherwise say so, with the way to trust it. */
export function requireTrust(): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage('Attractor runs pipelines only in a trusted workspace (tool commands and LLM calls). Lint and the graph view work without trust.', 'Manage Workspace Trust').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}

/** A run of the workspace's run directories that `filter` accepts, or one browsed to. */
export async function pickRun(ctx: Ctx, title: string, filter: (status: RunSummaryStatus) => boolean): Promise<string | undefined> {
  const candidates = ctx.runRoots().flatMap((root) => listRuns(root)).filter((run) => filter(run.status));
  const browse = { label: '$(folder) Browse…', directory: undefined as string | undefined };
  const picked = await vscode.window.showQuickPick([...candidates.map((run) => ({ label: pickerLabel(run), description: run.name, detail: statusWord(run.status), directory: run.directory as string | undefined })), browse], { title });
  if (!picked) return undefined;
  if (picked.directory) return picked.directory;
  const folders = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, title });
  return folders?.[0]?.fsPath;
}

export async function pickVisit(runDir: string): Promise<VisitTarget | undefined> {
  const choices = rerunChoices(runDir);
  if (choices.length === 0) return void vscode.window.showWarningMessage(`Attractor: ${runDir} has no visits to re-run from.`);
  const items = choices.map((choice) => ({ label: `${choice.nodeId}@${choice.visit}`, description: `iteration ${choice.iteration} · ${choice.status}`, target: { nodeId: choice.nodeId, visit: choice.visit } }));
  const picked = await vscode.window.showQuickPick(items, { title: `Re-run ${path.basename(runDir)} from before…`, placeHolder: 'the visit to start the branch run before (its state and workspace files then)' });
  return picked?.target;
}

/** A run directory handed to a command: a path, a Uri, or a Runs view element. */
export function runDirectoryOf(argument: unknown): string | undefined {
  if (typeof argument === 'string') return argument;
  if (argument instanceof vscode.Uri) return argument.fsPath;
  if (typeof argument !== 'object' || argument === null || !('run' in argument)) return undefined;
  const { run } = argument as { run: unknown };
  return typeof run === 'object' && run !== null && 'directory' in run && typeof run.directory === 'string' ? run.directory : undefined;
}

export function isVisitTarget(value: unknown): value is VisitTarget {
  if (typeof value !== 'object' || value === null || !('nodeId' in value) || typeof value.nodeId !== 'string') return false;
  return !('visit' in value) || value.visit === undefined || (typeof value.visit === 'number' && Number.isInteger(value.visit) && value.visit >= 1);
}

/** The run id of a Runs view element handed to a context-menu command. */
export function remoteRunId(element: unknown): string | undefined {
  if (typeof element !== 'object' || element === null || !('run' in element)) return undefined;
  const { run } = element as { run: unknown };
  return typeof run === 'object' && run !== null && 'id' in run && typeof run.id === 'string' ? run.id : undefined;
}
