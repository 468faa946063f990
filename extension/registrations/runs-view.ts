// The Runs view: the workspace's run directories and a connected server's runs, with their commands.
import fs from 'node:fs';
import * as vscode from 'vscode';
import { RunReader } from '../../host/run-directory/run-reader';
import type { Ctx } from '../ctx';
import { pickRun, remoteRunId } from './run-pickers';

export function register(ctx: Ctx): void {
  const { remote, runsTree } = ctx;
  ctx.subscribe(vscode.window.registerTreeDataProvider('attractor.runs', runsTree), ctx.runs.onDidChangeRuns(() => runsTree.refresh()), remote.onDidChange(() => runsTree.redraw()));
  ctx.command('attractor.openTrace', async (directory) => {
    const runDir = typeof directory === 'string' ? directory : await pickRun(ctx, 'Open trace', () => true);
    if (!runDir) return;
    const trace = new RunReader(runDir).traceFile;
    if (!fs.existsSync(trace)) return void vscode.window.showWarningMessage(`${runDir} has no trace yet.`);
    await vscode.window.showTextDocument(vscode.Uri.file(trace), { preview: true });
  });
  ctx.command('attractor.refreshRuns', async () => {
    await remote.server?.refresh();
    runsTree.refresh();
  });
  ctx.command('attractor.connectServer', () => remote.connect());
  ctx.command('attractor.disconnectServer', () => remote.disconnect());
  ctx.command('attractor.openRemoteRun', (id) => remote.open(typeof id === 'string' ? id : undefined));
  ctx.command('attractor.cancelRemoteRun', async (element) => {
    const id = typeof element === 'string' ? element : remoteRunId(element);
    if (id) await remote.cancel(id);
  });
  ctx.command('attractor.attachDebugger', async (element) => {
    const id = typeof element === 'string' ? element : remoteRunId(element);
    if (id) await remote.attachDebugger(id);
  });
  void remote.restore();
}
