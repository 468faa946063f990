// One context for activation (rust-analyzer's `Ctx`): the parts every registration module uses,
// made once; each module under registrations/ takes it and registers its own concerns.
import path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { GraphPanel } from './graph-panel';
import { startLanguageClient } from './language-client';
import { askedModelConsent } from './lm/model-consent';
import { PipelineQueries } from './pipeline-queries';
import { RemoteServer } from './remote-server';
import { RunCoordinator } from './runs';
import { RunsTreeProvider } from './runs-view';
import type { LlmAccess } from './secrets';
import { readSettings, type ExtensionSettings } from './settings';
import { RunStatusBar } from './status-bar';

export interface Ctx {
  readonly extension: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
  settings(): ExtensionSettings;
  /** The language server's client, starting; the extension asks it about pipelines through `queries`. */
  readonly languageClient: Promise<LanguageClient>;
  readonly queries: PipelineQueries;
  readonly panel: GraphPanel;
  readonly statusBar: RunStatusBar;
  readonly llmAccess: LlmAccess;
  /** Where "Open example pipeline" copies the examples, so the demo's tool steps never write into the user's workspace. */
  readonly examples: vscode.Uri;
  readonly runs: RunCoordinator;
  readonly remote: RemoteServer;
  readonly runsTree: RunsTreeProvider;
  /** The run directories of the workspace folders (setting `attractor.runDirectory`). */
  runRoots(): string[];
  /** Disposed when the extension deactivates. */
  subscribe(...disposables: vscode.Disposable[]): void;
  command(id: string, handler: (...args: unknown[]) => unknown): void;
}

export function createCtx(extension: vscode.ExtensionContext): Ctx {
  const log = vscode.window.createOutputChannel('Attractor', { log: true });
  const settings = (): ExtensionSettings => readSettings((key) => vscode.workspace.getConfiguration('attractor').get(key));
  const languageClient = startLanguageClient(extension, log);
  const queries = new PipelineQueries(
    languageClient.catch(() => undefined),
    log,
  );
  const panel = new GraphPanel(extension.extensionUri, settings, log, queries);
  const statusBar = new RunStatusBar();
  const examples = vscode.Uri.joinPath(extension.globalStorageUri, 'examples');
  const llmAccess: LlmAccess = { secrets: extension.secrets, consent: askedModelConsent(extension.globalState) };
  const runs = new RunCoordinator(panel, statusBar, log, llmAccess, settings, examples.fsPath, queries);
  const runRoots = (): string[] => (vscode.workspace.workspaceFolders ?? []).map((folder) => path.resolve(folder.uri.fsPath, settings().runDirectory));
  const remote = new RemoteServer(extension.secrets, panel, log);
  const runsTree = new RunsTreeProvider(runRoots, remote);
  const subscribe = (...disposables: vscode.Disposable[]): void => void extension.subscriptions.push(...disposables);
  subscribe(log, panel, statusBar, runs, remote, runsTree);
  return {
    extension,
    log,
    settings,
    languageClient,
    queries,
    panel,
    statusBar,
    llmAccess,
    examples,
    runs,
    remote,
    runsTree,
    runRoots,
    subscribe,
    command: (id, handler) => subscribe(vscode.commands.registerCommand(id, handler)),
  };
}
