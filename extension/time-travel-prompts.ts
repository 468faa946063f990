// What VS Code asks and offers around time travel ("Re-run from here", the debugger's Step Back,
// Reverse Continue and Restart Frame): which working directory a run goes back into, a modal before
// changes the run did not make are discarded, and Undo after every restore.
import path from 'node:path';
import * as vscode from 'vscode';
import { loadCheckpoint } from '../engine/runtime/run-directory';
import type { Branched, ChangedElsewhere, VisitTarget } from '../engine/runtime/rerun';
import { branchFromVisit, undoBranchRestore } from '../engine/runtime/rerun';
import { describeChangesElsewhere, quotePath } from '../host/file-changes';
import type { CustomEventBodies } from '../host/protocol/debug';
import { DISCARD_CHANGES_ARGUMENT } from '../host/protocol/debug';

const RESTORE_ANYWAY = 'Restore anyway';
const UNDO = 'Undo';

/**
 * The working directory a run of `runDirectory` may go back into: the one it worked in, as its
 * checkpoint says, when that lies in an open workspace folder; anywhere else only once the person
 * confirms it (a run directory can be copied or forged). Undefined when refused or unreadable.
 */
export async function confirmedWorkingDirectory(runDirectory: string): Promise<string | undefined> {
  let cwd: string;
  try {
    cwd = loadCheckpoint(runDirectory).cwd;
  } catch (error) {
    void vscode.window.showErrorMessage(`Attractor: ${(error as Error).message}`);
    return undefined;
  }
  const inWorkspace = (vscode.workspace.workspaceFolders ?? []).some((folder) => isWithin(cwd, folder.uri.fsPath));
  if (inWorkspace) return cwd;
  const choice = await vscode.window.showWarningMessage(
    `Attractor: the run ${path.basename(runDirectory)} worked in ${cwd}, outside the open workspace.`,
    { modal: true, detail: `Going on with it rewrites files in ${cwd} and runs its tool commands there. Only go on if you know where this run directory came from.` },
    'Use this folder',
  );
  return choice === 'Use this folder' ? cwd : undefined;
}

/**
 * "Re-run from here" with its questions: a modal listing the files the run did not change that going
 * back would discard (Restore anyway / Cancel), and after the restore a notification offering Undo.
 * Undefined when nothing was done; else the branch and the working directory it runs in.
 */
export async function branchWithConsent(runDirectory: string, target: VisitTarget, log: vscode.LogOutputChannel): Promise<{ branch: Branched; cwd: string } | undefined> {
  const cwd = await confirmedWorkingDirectory(runDirectory);
  if (cwd === undefined) return undefined;
  let branch = await branchFromVisit(runDirectory, target, { cwd });
  if (branch.kind === 'changed-elsewhere') {
    if (!(await confirmDiscard(branch, 'Re-run from here'))) return undefined;
    branch = await branchFromVisit(runDirectory, target, { cwd, discardChanges: true });
  }
  if (branch.kind === 'changed-elsewhere') return undefined;
  if (branch.kind === 'refused') {
    void vscode.window.showErrorMessage(`Attractor: ${branch.reason}`);
    return undefined;
  }
  log.info(`re-run of ${runDirectory} from before ${branch.nodeId}@${branch.visit} (step ${branch.step}) in the branch ${branch.directory}`);
  if (branch.restore) void offerUndo(branch.directory, branch.restore.cwd, branch.restore.discarded.length, branch.restore.overBudget ?? []);
  if (branch.workspaceNotRestored) {
    log.warn(`the working directory was NOT restored: ${branch.workspaceNotRestored}`);
    void vscode.window.showWarningMessage(`Attractor: the working directory was NOT restored (${branch.workspaceNotRestored}); the branch starts from the run's state only.`);
  }
  return { branch, cwd };
}

/** The debugger's time-travel events: a refused travel asks before going back anyway; a restore offers Undo. */
export async function onTravelEvent(session: Pick<vscode.DebugSession, 'customRequest'>, event: string, body: unknown): Promise<void> {
  if (event === 'travelRefused') {
    const refusal = body as CustomEventBodies['travelRefused'];
    if (await confirmDiscard(refusal, 'Going back')) await session.customRequest(refusal.command, { ...refusal.arguments, [DISCARD_CHANGES_ARGUMENT]: true });
  } else if (event === 'workspaceRestored') {
    const restored = body as CustomEventBodies['workspaceRestored'];
    await offerUndo(restored.branch, restored.cwd, restored.discarded, restored.overBudget);
  }
}

/** The modal before time travel discards changes the run did not make: true for "Restore anyway". */
async function confirmDiscard(refusal: Pick<ChangedElsewhere, 'cwd' | 'changes'>, what: string): Promise<boolean> {
  const choice = await vscode.window.showWarningMessage(
    `Attractor: ${what} would discard ${refusal.changes.length} change(s) the run did not make.`,
    { modal: true, detail: `${describeChangesElsewhere(refusal.cwd, refusal.changes)}\n\nWhat the folder holds now is kept as a snapshot: Undo brings it back.` },
    RESTORE_ANYWAY,
  );
  return choice === RESTORE_ANYWAY;
}

/** After a restore: a notification whose Undo puts the working directory back (refused while the branch runs). */
async function offerUndo(branch: string, cwd: string, discarded: number, overBudget: readonly string[]): Promise<void> {
  const lost = discarded > 0 ? `, over ${discarded} change(s) the run did not make` : '';
  const leftAlone = overBudget.length > 0 ? ` Left as it is, past the snapshot budget: ${overBudget.map(quotePath).join(', ')}.` : '';
  const choice = await vscode.window.showInformationMessage(`Attractor: ${cwd} was put back as it was then${lost}.${leftAlone} Undo brings back what it held (once the branch run has ended).`, UNDO);
  if (choice !== UNDO) return;
  let undone = await undoBranchRestore(branch);
  if (undone.kind === 'changed-elsewhere' && (await confirmDiscard(undone, 'Undo'))) undone = await undoBranchRestore(branch, { discardChanges: true });
  if (undone.kind === 'refused') void vscode.window.showErrorMessage(`Attractor: cannot undo: ${undone.reason}`);
  else if (undone.kind === 'undone') void vscode.window.showInformationMessage(`Attractor: ${undone.record.cwd} is back as the restore found it.`);
}

function isWithin(file: string, directory: string): boolean {
  const relative = path.relative(directory, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
