// Activation: makes the context (ctx.ts) and hands it to each registration module. The pipeline
// semantics live in the engine; nothing here decides how a run goes.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { createCtx } from './ctx';
import * as commands from './registrations/commands';
import * as debug from './registrations/debug';
import * as graphView from './registrations/graph-view';
import * as languageClient from './registrations/language-client';
import * as lmTools from './registrations/lm-tools';
import * as runsView from './registrations/runs-view';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const activateStarted = performance.now();
  const ctx = createCtx(context);
  for (const registration of [debug, commands, graphView, runsView, languageClient, lmTools]) registration.register(ctx);
  client = await ctx.languageClient;

  const memory = process.memoryUsage();
  const mb = (bytes: number): string => (bytes / 1048576).toFixed(1);
  ctx.log.info(
    `activated in ${(performance.now() - activateStarted).toFixed(1)} ms (activate(), language client started); extension host memory: rss ${mb(memory.rss)} MB, heapUsed ${mb(memory.heapUsed)} MB; workspace ${vscode.workspace.isTrusted ? 'trusted' : 'untrusted (runs disabled)'}`,
  );
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
