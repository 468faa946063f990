// Running pipelines: run, debug, stop, resume, re-run from a visit, and the example to try them on.
import path from 'node:path';
import * as vscode from 'vscode';
import { hasEnded, isResumable, runProgram } from '../../host/run-directory/run-summary';
import type { Ctx } from '../ctx';
import { registerOpenExample } from '../open-example';
import { confirmedWorkingDirectory } from '../time-travel-prompts';
import { isVisitTarget, pickRun, pickVisit, requireTrust, runDirectoryOf } from './run-pickers';

export function register(ctx: Ctx): void {
  const { runs } = ctx;
  const pipelineUri = (uri: unknown): vscode.Uri | undefined => (uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri);
  ctx.command('attractor.run', async (uri) => {
    const target = pipelineUri(uri);
    if (target && requireTrust()) await runs.run(target.fsPath);
  });
  ctx.command('attractor.debug', async (uri) => {
    const target = pipelineUri(uri);
    if (target && requireTrust()) await runs.debug(target.fsPath);
  });
  ctx.command('attractor.stopRun', () => runs.stopLocalRun());
  ctx.command('attractor.resumeRun', async (directory) => {
    if (!requireTrust()) return;
    const runDir = runDirectoryOf(directory) ?? (await pickRun(ctx, 'Resume run…', isResumable));
    if (!runDir) return;
    const cwd = await confirmedWorkingDirectory(runDir);
    if (cwd === undefined) return;
    await runs.debug(runProgram(runDir), { resume: runDir, cwd, name: `Resume ${path.basename(runDir)}` });
  });
  ctx.command('attractor.rerunFrom', async (directory, target) => {
    if (!requireTrust()) return;
    const runDir = runDirectoryOf(directory) ?? (await pickRun(ctx, 'Re-run from… (a run that ended)', hasEnded));
    if (!runDir) return;
    const visit = isVisitTarget(target) ? target : await pickVisit(runDir);
    if (visit) await runs.rerunFrom(runDir, visit);
  });
  registerOpenExample(ctx.extension, ctx.examples);
}
