// The graph view: showing a pipeline, opening a run directory in it, and the visit diffs it opens.
import fs from 'node:fs';
import * as vscode from 'vscode';
import { runStatusWords } from '../../engine/runtime/run-status';
import { RunReader } from '../../host/run-directory/run-reader';
import { summarizeRun } from '../../host/run-directory/run-summary';
import { graphStateFromTrace, traceEntriesMessage } from '../../host/run-files';
import type { Ctx } from '../ctx';
import { registerSnapshotDocuments } from '../snapshot-diff';
import { pickRun } from './run-pickers';

export function register(ctx: Ctx): void {
  const { panel } = ctx;
  ctx.subscribe(registerSnapshotDocuments());
  ctx.command('attractor.showGraph', async (uri) => {
    const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
    if (!target) return void vscode.window.showInformationMessage('Open a .dot pipeline to show its graph.');
    await panel.show(await vscode.workspace.openTextDocument(target), { keepRun: true });
  });
  ctx.command('attractor.openRun', async (directory) => {
    const runDir = typeof directory === 'string' ? directory : directory instanceof vscode.Uri ? directory.fsPath : await pickRun(ctx, 'Open run…', () => true);
    if (runDir) await openRun(runDir);
  });

  async function openRun(runDir: string): Promise<void> {
    const reader = new RunReader(runDir);
    const copy = reader.pipelineCopy;
    const summary = summarizeRun(runDir);
    const source = summary.sourcePath && fs.existsSync(summary.sourcePath) ? summary.sourcePath : copy;
    if (!fs.existsSync(source)) return void vscode.window.showErrorMessage(`${runDir} is not a run directory (no pipeline copy at ${copy}).`);
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(source));
    await panel.show(document);
    panel.attachRun(runDir);
    const status = summary.status === 'success' || summary.status === 'fail' || summary.status === 'running' ? runStatusWords[summary.status] : 'cancelled';
    panel.post(graphStateFromTrace(reader.trace(), status));
    panel.post(traceEntriesMessage(runDir));
  }
}
