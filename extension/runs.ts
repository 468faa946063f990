// Starting runs (debug sessions and local runs) and connecting them to the graph view, the
// status bar and the output channel.
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { DEBUG_TYPE, runDefaults, type AnswerGateArguments, type AttractorLaunchArguments, type CustomEventBodies } from '../host/protocol/debug';
import type { BackendFactory } from '../host/backends';
import type { Answer, HumanQuestion } from '../engine';
import { launchPipelineFile } from '../engine';
import { askGate, askInVsCode } from './gate-prompt';
import { messagesForDebugEvent } from './graph-bridge';
import type { PipelineQueries } from './pipeline-queries';
import type { GraphPanel } from './graph-panel';
import { localRunServices, runLocally } from './local-run';
import type { PipelineRunner } from './chat/run-tool';
import { llmBackendFactory, type LlmAccess } from './secrets';
import { resolveDebugConfiguration, type AttractorDebugConfiguration } from './debug-configuration';
import type { ExtensionSettings } from './settings';
import type { RunStatusBar } from './status-bar';
import type { HumanGateMessage } from '../host/protocol/webview';
import type { VisitTarget } from '../engine/runtime/rerun';
import { runProgram } from '../host/run-directory/run-summary';
import { describeRunEnd } from '../engine/runtime/run-status';
import { branchWithConsent, onTravelEvent } from './time-travel-prompts';

export class RunCoordinator implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[] = [];
  private localRun: { readonly abort: AbortController; readonly name: string } | undefined;
  /** Debug sessions' gates being asked, by gate id: aborting one closes its quick pick. */
  private readonly debugGates = new Map<string, AbortController>();
  private readonly onRunsChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeRuns = this.onRunsChanged.event;

  constructor(
    private readonly panel: GraphPanel,
    private readonly statusBar: RunStatusBar,
    private readonly log: vscode.LogOutputChannel,
    private readonly llmAccess: LlmAccess,
    private readonly settings: () => ExtensionSettings,
    /** Where "Open example pipeline" keeps its copies (see ResolveContext.examplesDirectory). */
    private readonly examplesDirectory: string,
    private readonly queries: PipelineQueries,
  ) {
    this.subscriptions.push(
      this.onRunsChanged,
      vscode.debug.onDidStartDebugSession((session) => {
        if (session.type !== DEBUG_TYPE) return;
        const config = session.configuration as AttractorDebugConfiguration;
        this.panel.attachRun(config.logsRoot ?? config.resume);
        void this.showProgram(config.program);
        this.statusBar.started(path.basename(config.program), 'debugging');
        this.log.info(`debug session started: ${config.program}${config.logsRoot ? ` → ${config.logsRoot}` : ''}`);
      }),
      vscode.debug.onDidTerminateDebugSession((session) => {
        if (session.type !== DEBUG_TYPE) return;
        this.statusBar.finished();
        this.onRunsChanged.fire();
      }),
      vscode.debug.onDidReceiveDebugSessionCustomEvent((event) => this.onCustomEvent(event)),
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: (session) => ({
          onDidSendMessage: (message: { type?: string; event?: string; body?: { threadId?: number } }) => {
            if (message.type === 'event' && message.event === 'stopped' && message.body?.threadId !== undefined) void this.selectStoppedNode(session, message.body.threadId);
          },
        }),
      }),
    );
  }

  /** Completes a launch configuration (shared by F5, the dynamic entries and the commands). */
  resolve(config: Partial<AttractorDebugConfiguration>, folder: vscode.WorkspaceFolder | undefined): AttractorDebugConfiguration | undefined {
    const active = vscode.window.activeTextEditor?.document;
    const activeProgram = active?.languageId === 'attractor-dot' && active.uri.scheme === 'file' ? active.uri.fsPath : undefined;
    const program = config.program ?? activeProgram;
    // Run directories go under the folder that holds the pipeline; a pipeline outside the workspace keeps them beside it.
    const programFolder = program ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(program)) : folder;
    const resolution = resolveDebugConfiguration(config, {
      ...(activeProgram ? { activeProgram } : {}),
      ...(programFolder ? { workspaceFolder: programFolder.uri.fsPath } : {}),
      settings: this.settings(),
      trusted: vscode.workspace.isTrusted,
      fileExists: (file) => fs.existsSync(file),
      now: new Date(),
      examplesDirectory: this.examplesDirectory,
    });
    if (!resolution.ok) {
      void vscode.window.showErrorMessage(resolution.message);
      return undefined;
    }
    if (resolution.scratchDirectory) fs.mkdirSync(resolution.scratchDirectory, { recursive: true });
    return resolution.configuration;
  }

  async debug(program: string, extra: Partial<AttractorDebugConfiguration> = {}): Promise<void> {
    await vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(vscode.Uri.file(program)), { type: DEBUG_TYPE, request: 'launch', name: `Debug pipeline ${path.basename(program)}`, program, ...extra });
  }

  /** A run without the debugger; human gates ask in the graph view and in a quick pick. */
  async run(program: string, extra: Partial<AttractorDebugConfiguration> = {}): Promise<void> {
    if (this.localRun) {
      void vscode.window.showWarningMessage(`Attractor: ${this.localRun.name} is still running.`);
      return;
    }
    const config = this.resolve({ program, ...extra }, vscode.workspace.getWorkspaceFolder(vscode.Uri.file(program)));
    if (!config) return;
    const backends = await this.secretBackends();
    if (!backends.ok) {
      void vscode.window.showErrorMessage(`Attractor: ${backends.message}`);
      return;
    }
    const abort = new AbortController();
    const name = path.basename(program);
    this.localRun = { abort, name };
    const logsRoot = config.resume ?? config.logsRoot ?? '';
    this.panel.attachRun(logsRoot);
    await this.showProgram(config.program);
    this.statusBar.started(name, 'running');
    this.log.info(`run started: ${config.program} → ${logsRoot}`);
    const args: AttractorLaunchArguments & { logsRoot: string } = { ...config, logsRoot };
    try {
      const outcome = await runLocally(
        args,
        {
          post: (message) => this.panel.post(message),
          ask: (question, signal) => this.ask(question, signal),
          onEvent: (event) => {
            if (event.type === 'node:start') this.statusBar.node(event.nodeId);
          },
          backendFactory: backends.factory,
        },
        abort.signal,
      );
      if (outcome.kind === 'refused') {
        this.log.error(`run refused: ${outcome.reason}`);
        void vscode.window.showErrorMessage(`Attractor: ${outcome.reason}`);
      } else {
        this.log.info(`run ${outcome.status}${outcome.failureReason ? `: ${outcome.failureReason}` : ''} (${outcome.logsRoot})`);
        const message = `Attractor: ${name} ${outcome.status === 'cancelled' ? 'was ' : ''}${describeRunEnd(outcome.status, outcome.failureReason)}`;
        void (outcome.status === 'success' ? vscode.window.showInformationMessage(message) : vscode.window.showWarningMessage(message));
      }
    } finally {
      this.localRun = undefined;
      this.statusBar.finished();
      this.onRunsChanged.fire();
    }
  }

  /**
   * "Re-run from here": a new branch run beside `runDirectory` from before the chosen visit, with
   * the state and the workspace files of then (the run itself stays as it is), run like "Run pipeline".
   */
  async rerunFrom(runDirectory: string, target: VisitTarget): Promise<void> {
    if (this.localRun) {
      void vscode.window.showWarningMessage(`Attractor: ${this.localRun.name} is still running.`);
      return;
    }
    const made = await branchWithConsent(runDirectory, target, this.log);
    if (!made) return;
    await this.run(runProgram(made.branch.directory), { resume: made.branch.directory, cwd: made.cwd });
  }

  /** LLM backends with SecretStorage keys and VS Code's models; the environment's settings may be malformed (ATTRACTOR_* variables). */
  private async secretBackends(): Promise<{ ok: true; factory: BackendFactory } | { ok: false; message: string }> {
    try {
      return { ok: true, factory: await llmBackendFactory(this.llmAccess, this.settings()) };
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
  }

  /** The chat tools' runner: the engine with the configured backend, shown in the graph view like "Run pipeline". */
  readonly chatRunner: PipelineRunner = async (request) => {
    const config = this.resolve({ program: request.file, cwd: request.cwd, logsRoot: request.logsRoot }, vscode.workspace.getWorkspaceFolder(vscode.Uri.file(request.file)));
    if (!config) return { kind: 'refused', diagnostics: [], reason: 'the run configuration was refused (see the notification)' };
    const backends = await this.secretBackends();
    if (!backends.ok) return { kind: 'refused', diagnostics: [], reason: backends.message };
    const prepared = localRunServices(config, {
      post: (message) => this.panel.post(message),
      ask: (question, signal) => this.ask(question, signal),
      backendFactory: backends.factory,
    });
    if (!prepared.ok) return { kind: 'refused', diagnostics: [], reason: prepared.reason };
    this.panel.attachRun(request.logsRoot);
    await this.showProgram(request.file);
    prepared.services.attach(request.events);
    try {
      return await launchPipelineFile(request.file, { ...request, ...runDefaults(config), backend: prepared.services.backend, interviewer: prepared.services.interviewer });
    } finally {
      this.onRunsChanged.fire();
    }
  };

  stopLocalRun(): void {
    this.localRun?.abort.abort(new Error('cancelled from VS Code'));
  }

  dispose(): void {
    this.stopLocalRun();
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private async showProgram(program: string): Promise<void> {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(program));
    await this.panel.show(document, { keepRun: true });
  }

  private onCustomEvent(event: vscode.DebugSessionCustomEvent): void {
    if (event.session.type !== DEBUG_TYPE) return;
    void onTravelEvent(event.session, event.event, event.body);
    const config = event.session.configuration as AttractorDebugConfiguration;
    if (event.event === 'graphState') {
      const body = event.body as CustomEventBodies['graphState'];
      if (body.logsRoot) this.panel.setRunDirectory(body.logsRoot);
      if (body.activeNode) this.statusBar.node(body.activeNode);
    }
    for (const message of messagesForDebugEvent(event.event, event.body, config.program)) {
      if (message.type === 'humanGate') void this.askDebugGate(event.session, message);
      else {
        if (message.type === 'humanGateClosed') this.debugGates.get(message.gateId)?.abort();
        this.panel.post(message);
      }
    }
  }

  /** Where the debugger stopped, selected in the graph view (the run overlay still shows the last node run). */
  private async selectStoppedNode(session: vscode.DebugSession, threadId: number): Promise<void> {
    try {
      const trace = (await session.customRequest('stackTrace', { threadId, levels: 1 })) as { stackFrames?: Array<{ line: number; source?: { path?: string } }> };
      const frame = trace.stackFrames?.[0];
      const file = frame?.source?.path;
      const shown = this.panel.shownUri;
      // VS Code's remote hosts (code-server) hand sources back as URIs, the desktop as paths.
      const stoppedIn = file && /^[a-z][\w+.-]*:\/\//i.test(file) ? vscode.Uri.parse(file).path : file;
      if (!frame || !shown || stoppedIn !== shown.path) return;
      // The node whose statement is on the frame's line (DAP lines count from 1), as the language server parsed it.
      const nodeId = (await this.queries.breakpointTargets(shown, [frame.line - 1]))?.nodes[0];
      if (nodeId) this.panel.post({ type: 'selectNode', nodeId });
    } catch (error) {
      this.log.warn(`could not read the stopped frame: ${String(error)}`);
    }
  }

  /** A debug session's gate, asked as a local run's is; the answer goes back through `answerGate`. */
  private async askDebugGate(session: vscode.DebugSession, gate: HumanGateMessage): Promise<void> {
    const closed = new AbortController();
    this.debugGates.set(gate.gateId, closed);
    const answer = await askGate(this.panel, gate, closed.signal);
    this.debugGates.delete(gate.gateId);
    if (!answer) return;
    try {
      await session.customRequest('answerGate', { gateId: gate.gateId, answer } satisfies AnswerGateArguments);
    } catch (error) {
      void vscode.window.showErrorMessage(`Attractor: the gate did not take the answer: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A local run's gate: asked in VS Code until answered, or until the run stops. */
  private ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
    return askInVsCode(this.panel, question, signal);
  }
}
