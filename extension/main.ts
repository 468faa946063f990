// Activation: starts and wires the parts (language client, debugger, graph view, runs view,
// commands). The pipeline semantics live in the engine; nothing here decides how a run goes.
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { AttractorDebugSession } from '../debug-adapter';
import { DEBUG_TYPE } from '../host/protocol/debug';
import { graphStateFromTrace, traceEntriesMessage } from '../host/run-files';
import { registerChat } from './chat/register';
import { PipelineCodeLensProvider } from './code-lens';
import { dynamicConfigurations, initialConfigurations, resolveAttachConfiguration, type AttractorAttachConfiguration, type AttractorDebugConfiguration } from './debug-configuration';
import { GraphPanel } from './graph-panel';
import { looksLikeAttractorPipeline } from './language-detection';
import { registerOpenExample } from './open-example';
import { LANGUAGE_ID, startLanguageClient } from './language-client';
import { RemoteServer } from './remote-server';
import { RunCoordinator } from './runs';
import { pickerLabel, rerunChoices, statusWord } from './runs-model';
import { hasEnded, isResumable, runProgram, summarizeRun, type RunSummaryStatus } from '../host/run-directory/run-summary';
import { listRuns } from '../host/run-directory/run-catalog';
import { RunReader } from '../host/run-directory/run-reader';
import { runStatusWords } from '../engine/runtime/run-status';
import { confirmedWorkingDirectory } from './time-travel-prompts';
import type { VisitTarget } from '../engine/runtime/rerun';
import { RunsTreeProvider } from './runs-view';
import { routeHover } from './lm/route-hover';
import { PipelineQueries } from './pipeline-queries';
import { llmBackend, llmBackendFactory, setApiKeyCommand, type LlmAccess } from './secrets';
import { askedModelConsent } from './lm/model-consent';
import { readSettings, type ExtensionSettings } from './settings';
import { registerSnapshotDocuments } from './snapshot-diff';
import { RunStatusBar } from './status-bar';
import type { LanguageClient } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const activateStarted = performance.now();
  const log = vscode.window.createOutputChannel('Attractor', { log: true });
  const settings = (): ExtensionSettings => readSettings((key) => vscode.workspace.getConfiguration('attractor').get(key));
  const languageClient = startLanguageClient(context, log);
  const queries = new PipelineQueries(languageClient.catch(() => undefined), log);
  const panel = new GraphPanel(context.extensionUri, settings, log, queries);
  const statusBar = new RunStatusBar();
  // "Open example pipeline" copies the examples here, so the demo's tool steps never write into the user's workspace.
  const examples = vscode.Uri.joinPath(context.globalStorageUri, 'examples');
  const llmAccess: LlmAccess = { secrets: context.secrets, consent: askedModelConsent(context.globalState) };
  const runs = new RunCoordinator(panel, statusBar, log, llmAccess, settings, examples.fsPath, queries);
  const runRoots = (): string[] => (vscode.workspace.workspaceFolders ?? []).map((folder) => path.resolve(folder.uri.fsPath, settings().runDirectory));
  const remote = new RemoteServer(context.secrets, panel, log);
  const runsTree = new RunsTreeProvider(runRoots, remote);
  context.subscriptions.push(log, panel, statusBar, runs, remote, runsTree, runs.onDidChangeRuns(() => runsTree.refresh()), remote.onDidChange(() => runsTree.refresh()), registerSnapshotDocuments());

  // ---- debugger ----
  context.subscriptions.push(
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, {
      provideDebugConfigurations: () => initialConfigurations(),
      resolveDebugConfiguration: async (folder, config) => (config.request === 'attach' ? resolveAttach(config as Partial<AttractorAttachConfiguration>) : runs.resolve(config as Partial<AttractorDebugConfiguration>, folder)),
    }),
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      {
        provideDebugConfigurations: () => {
          const active = vscode.window.activeTextEditor?.document;
          return active?.languageId === LANGUAGE_ID && active.uri.scheme === 'file' ? dynamicConfigurations(active.uri.fsPath) : [];
        },
      },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
      // Inline: the adapter shares the extension host; LLM keys reach it from SecretStorage, and VS Code's models through vscode.lm.
      createDebugAdapterDescriptor: async () => new vscode.DebugAdapterInlineImplementation(new AttractorDebugSession({ backendFactory: await llmBackendFactory(llmAccess, settings()) })),
    }),
  );

  /** Attaching runs nothing here, so it needs no trust: the server decided what it runs. */
  async function resolveAttach(config: Partial<AttractorAttachConfiguration>): Promise<AttractorAttachConfiguration | undefined> {
    const resolution = resolveAttachConfiguration(config, await remote.connection());
    if (resolution.ok) return resolution.configuration;
    void vscode.window.showErrorMessage(resolution.message);
    return undefined;
  }

  // ---- commands ----
  const pipelineUri = (uri: unknown): vscode.Uri | undefined => (uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri);
  const requireTrust = (): boolean => {
    if (vscode.workspace.isTrusted) return true;
    void vscode.window.showWarningMessage('Attractor runs pipelines only in a trusted workspace (tool commands and LLM calls). Lint and the graph view work without trust.', 'Manage Workspace Trust').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
    });
    return false;
  };
  const pickRun = async (title: string, filter: (status: RunSummaryStatus) => boolean): Promise<string | undefined> => {
    const candidates = runRoots().flatMap((root) => listRuns(root)).filter((run) => filter(run.status));
    const browse = { label: '$(folder) Browse…', directory: undefined as string | undefined };
    const picked = await vscode.window.showQuickPick([...candidates.map((run) => ({ label: pickerLabel(run), description: run.name, detail: statusWord(run.status), directory: run.directory as string | undefined })), browse], { title });
    if (!picked) return undefined;
    if (picked.directory) return picked.directory;
    const folders = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, title });
    return folders?.[0]?.fsPath;
  };
  const register = (id: string, handler: (...args: unknown[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, handler));
  };

  register('attractor.run', async (uri) => {
    const target = pipelineUri(uri);
    if (target && requireTrust()) await runs.run(target.fsPath);
  });
  register('attractor.debug', async (uri) => {
    const target = pipelineUri(uri);
    if (target && requireTrust()) await runs.debug(target.fsPath);
  });
  register('attractor.stopRun', () => runs.stopLocalRun());
  register('attractor.showGraph', async (uri) => {
    const target = pipelineUri(uri);
    if (!target) return void vscode.window.showInformationMessage('Open a .dot pipeline to show its graph.');
    await panel.show(await vscode.workspace.openTextDocument(target), { keepRun: true });
  });
  register('attractor.lintWorkspace', async () => {
    // Opening a document hands it to the language server, which publishes its diagnostics.
    const files = await vscode.workspace.findFiles('**/*.{dot,gv}', '**/{node_modules,.attractor-runs}/**', 2000);
    let linted = 0;
    for (const file of files) {
      const document = await vscode.workspace.openTextDocument(file);
      if (document.languageId !== LANGUAGE_ID) continue;
      linted++;
    }
    log.info(`lint workspace: ${linted} pipeline(s)`);
    await vscode.commands.executeCommand('workbench.actions.view.problems');
  });
  register('attractor.openRun', async (directory) => {
    const runDir = typeof directory === 'string' ? directory : directory instanceof vscode.Uri ? directory.fsPath : await pickRun('Open run…', () => true);
    if (runDir) await openRun(runDir);
  });
  register('attractor.resumeRun', async (directory) => {
    if (!requireTrust()) return;
    const runDir = typeof directory === 'string' ? directory : await pickRun('Resume run…', isResumable);
    if (!runDir) return;
    const cwd = await confirmedWorkingDirectory(runDir);
    if (cwd === undefined) return;
    await runs.debug(runProgram(runDir), { resume: runDir, cwd, name: `Resume ${path.basename(runDir)}` });
  });
  register('attractor.rerunFrom', async (directory, target) => {
    if (!requireTrust()) return;
    const runDir = runDirectoryOf(directory) ?? (await pickRun('Re-run from… (a run that ended)', hasEnded));
    if (!runDir) return;
    const visit = isVisitTarget(target) ? target : await pickVisit(runDir);
    if (visit) await runs.rerunFrom(runDir, visit);
  });
  register('attractor.openTrace', async (directory) => {
    const runDir = typeof directory === 'string' ? directory : await pickRun('Open trace', () => true);
    if (!runDir) return;
    const trace = new RunReader(runDir).traceFile;
    if (!fs.existsSync(trace)) return void vscode.window.showWarningMessage(`${runDir} has no trace yet.`);
    await vscode.window.showTextDocument(vscode.Uri.file(trace), { preview: true });
  });
  register('attractor.setApiKey', () => setApiKeyCommand(context.secrets));
  register('attractor.refreshRuns', async () => {
    await remote.server?.refresh();
    runsTree.refresh();
  });
  register('attractor.connectServer', () => remote.connect());
  register('attractor.disconnectServer', () => remote.disconnect());
  register('attractor.openRemoteRun', (id) => remote.open(typeof id === 'string' ? id : undefined));
  register('attractor.cancelRemoteRun', async (element) => {
    const id = typeof element === 'string' ? element : remoteRunId(element);
    if (id) await remote.cancel(id);
  });
  register('attractor.attachDebugger', async (element) => {
    const id = typeof element === 'string' ? element : remoteRunId(element);
    if (id) await remote.attachDebugger(id);
  });
  registerOpenExample(context, examples);

  async function pickVisit(runDir: string): Promise<VisitTarget | undefined> {
    const choices = rerunChoices(runDir);
    if (choices.length === 0) return void vscode.window.showWarningMessage(`Attractor: ${runDir} has no visits to re-run from.`);
    const items = choices.map((choice) => ({ label: `${choice.nodeId}@${choice.visit}`, description: `iteration ${choice.iteration} · ${choice.status}`, target: { nodeId: choice.nodeId, visit: choice.visit } }));
    const picked = await vscode.window.showQuickPick(items, { title: `Re-run ${path.basename(runDir)} from before…`, placeHolder: 'the visit to start the branch run before (its state and workspace files then)' });
    return picked?.target;
  }

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

  // ---- views, lenses, language ----
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider('attractor.runs', runsTree),
    vscode.languages.registerCodeLensProvider({ language: LANGUAGE_ID }, new PipelineCodeLensProvider()),
    // Beside the language server's hover: where an LLM node would run needs the editor's models and the stored keys.
    vscode.languages.registerHoverProvider({ language: LANGUAGE_ID }, {
      provideHover: async (document, position) => {
        const node = await queries.nodeAt(document.uri, position);
        const text = node ? routeHover(node, await llmBackend(llmAccess, settings())) : undefined;
        return text ? new vscode.Hover(new vscode.MarkdownString(text)) : undefined;
      },
    }),
    vscode.workspace.onDidOpenTextDocument((document) => claimIfPipeline(document, settings())),
  );
  for (const document of vscode.workspace.textDocuments) claimIfPipeline(document, settings());

  registerChat(context, {
    runner: runs.chatRunner,
    openGraphView: async (uri) => panel.show(await vscode.workspace.openTextDocument(uri), { keepRun: true }),
  });

  void remote.restore();
  client = await languageClient;

  const memory = process.memoryUsage();
  const mb = (bytes: number): string => (bytes / 1048576).toFixed(1);
  log.info(
    `activated in ${(performance.now() - activateStarted).toFixed(1)} ms (activate(), language client started); extension host memory: rss ${mb(memory.rss)} MB, heapUsed ${mb(memory.heapUsed)} MB; workspace ${vscode.workspace.isTrusted ? 'trusted' : 'untrusted (runs disabled)'}`,
  );
}

/** A run directory handed to a command: a path, a Uri, or a Runs view element. */
function runDirectoryOf(argument: unknown): string | undefined {
  if (typeof argument === 'string') return argument;
  if (argument instanceof vscode.Uri) return argument.fsPath;
  if (typeof argument !== 'object' || argument === null || !('run' in argument)) return undefined;
  const { run } = argument as { run: unknown };
  return typeof run === 'object' && run !== null && 'directory' in run && typeof run.directory === 'string' ? run.directory : undefined;
}

function isVisitTarget(value: unknown): value is VisitTarget {
  if (typeof value !== 'object' || value === null || !('nodeId' in value) || typeof value.nodeId !== 'string') return false;
  return !('visit' in value) || value.visit === undefined || (typeof value.visit === 'number' && Number.isInteger(value.visit) && value.visit >= 1);
}

/** The run id of a Runs view element handed to a context-menu command. */
function remoteRunId(element: unknown): string | undefined {
  if (typeof element !== 'object' || element === null || !('run' in element)) return undefined;
  const { run } = element as { run: unknown };
  return typeof run === 'object' && run !== null && 'id' in run && typeof run.id === 'string' ? run.id : undefined;
}

/** Another DOT extension may own `.dot`; a document that is an Attractor pipeline is taken over (setting `attractor.languageDetection`). */
function claimIfPipeline(document: vscode.TextDocument, settings: ExtensionSettings): void {
  if (settings.languageDetection !== 'auto' || document.languageId === LANGUAGE_ID) return;
  if (!/\.(dot|gv)$/i.test(document.uri.path) && document.languageId !== 'dot') return;
  if (looksLikeAttractorPipeline(document.getText())) void vscode.languages.setTextDocumentLanguage(document, LANGUAGE_ID);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
