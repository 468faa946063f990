// The graph view's controller: one webview panel showing one pipeline, fed by whichever run is
// attached (a debug session, a local run, or a run directory opened from disk).
import crypto from 'node:crypto';
import * as vscode from 'vscode';
import { renderWebviewHtml } from '../host/view/page-html';
import type { GateReply } from '../engine';
import { parseWebviewMessage, type ExtensionToWebviewMessage, type WebviewToExtensionMessage, type WireRange } from '../host/protocol/webview';
import { rerunTarget, visitArtifactsMessage } from '../host/run-files';
import { pickAttachmentFiles } from './gate-attachments';
import type { GateView } from './gate-prompt';
import type { ExtensionSettings } from './settings';
import { openVisitFileDiff } from './snapshot-diff';
import type { PipelineQueries } from './pipeline-queries';

export type GateResponder = (answer: GateReply) => void;

export class GraphPanel implements vscode.Disposable, GateView {
  private panel: vscode.WebviewPanel | undefined;
  private documentUri: vscode.Uri | undefined;
  private ready = false;
  /** Run messages replayed when the webview (re)loads: the latest graph state, the trace, open gates. */
  private lastGraphState: ExtensionToWebviewMessage | undefined;
  private lastSelection: ExtensionToWebviewMessage | undefined;
  private trace: ExtensionToWebviewMessage[] = [];
  private readonly openGates = new Map<string, { message: ExtensionToWebviewMessage; respond: GateResponder }>();
  private runDirectory: string | undefined;
  /** Stops whatever feeds the attached run (a remote run's event stream) when another replaces it. */
  private detachRun: (() => void) | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Counts breakpoint questions to the language server: only the latest answer is shown. */
  private breakpointsAsked = 0;
  private readonly visibility = new vscode.EventEmitter<boolean>();
  /** Fires when the graph view comes into sight or leaves it (another tab in its group, closed). */
  readonly onDidChangeVisible = this.visibility.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly settings: () => ExtensionSettings,
    private readonly log: vscode.LogOutputChannel,
    private readonly queries: PipelineQueries,
  ) {
    this.subscriptions.push(
      this.visibility,
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (this.documentUri && event.document.uri.toString() === this.documentUri.toString()) {
          this.sendDocument(event.document);
          void this.sendBreakpoints();
        }
      }),
      vscode.debug.onDidChangeBreakpoints(() => void this.sendBreakpoints()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('attractor.graph.layoutEngine')) this.post({ type: 'settings', layoutEngine: this.settings().layoutEngine });
      }),
    );
  }

  get shownUri(): vscode.Uri | undefined {
    return this.documentUri;
  }

  get visible(): boolean {
    return this.panel?.visible === true;
  }

  /** Shows `document` in the panel (creating it beside the editor). `keepRun` keeps the run overlay. */
  async show(document: vscode.TextDocument, options: { keepRun?: boolean; preserveFocus?: boolean } = {}): Promise<void> {
    const switching = this.documentUri?.toString() !== document.uri.toString();
    this.documentUri = document.uri;
    if (switching && !options.keepRun) this.clearRun();
    if (!this.panel) {
      this.panel = this.createPanel();
      if (this.panel.visible) this.visibility.fire(true);
    } else {
      // Where it already is: "beside" the active group would move it (into a new group when it is
      // itself the active one), and a moved graph view is gone from where the person left it.
      this.panel.reveal(undefined, options.preserveFocus ?? true);
    }
    this.panel.title = `Graph: ${document.uri.path.split('/').pop() ?? ''}`;
    if (this.ready) {
      this.sendDocument(document);
      void this.sendBreakpoints();
    }
  }

  /** Starts a new run's overlay (drops the previous run's state); `detach` is called once another run or document replaces it. */
  attachRun(runDirectory: string | undefined, detach?: () => void): void {
    this.clearRun();
    this.runDirectory = runDirectory;
    this.detachRun = detach;
  }

  setRunDirectory(runDirectory: string): void {
    this.runDirectory = runDirectory;
  }

  /** Posts a run message; graph state, trace and gates are also kept for a webview reload. */
  post(message: ExtensionToWebviewMessage): void {
    if (message.type === 'graphState') this.lastGraphState = message;
    else if (message.type === 'selectNode') this.lastSelection = message;
    else if (message.type === 'traceEntries') this.trace = message.replace ? [message] : [...this.trace, message];
    else if (message.type === 'humanGateClosed') this.openGates.delete(message.gateId);
    if (this.ready) void this.panel?.webview.postMessage(message);
  }

  /** Shows a human gate; `respond` receives the panel's answer. */
  askGate(message: Extract<ExtensionToWebviewMessage, { type: 'humanGate' }>, respond: GateResponder): void {
    this.openGates.set(message.gateId, { message, respond });
    if (this.ready) void this.panel?.webview.postMessage(message);
  }

  dispose(): void {
    this.panel?.dispose();
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private clearRun(): void {
    const detach = this.detachRun;
    this.detachRun = undefined;
    detach?.();
    this.lastGraphState = undefined;
    this.lastSelection = undefined;
    this.trace = [];
    this.openGates.clear();
    this.runDirectory = undefined;
    if (this.ready) {
      void this.panel?.webview.postMessage({ type: 'graphState', runStatus: 'idle', iteration: 0, nodes: {}, takenEdges: [] } satisfies ExtensionToWebviewMessage);
      void this.panel?.webview.postMessage({ type: 'traceEntries', entries: [], replace: true } satisfies ExtensionToWebviewMessage);
    }
  }

  private createPanel(): vscode.WebviewPanel {
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const panel = vscode.window.createWebviewPanel('attractor.graph', 'Graph', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [dist],
    });
    this.ready = false;
    panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw), undefined, this.subscriptions);
    let visible = panel.visible;
    panel.onDidChangeViewState(() => {
      if (panel.visible === visible) return;
      visible = panel.visible;
      this.visibility.fire(visible);
    });
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.ready = false;
      if (visible) this.visibility.fire(false);
    });
    panel.webview.html = renderWebviewHtml({
      cspSource: panel.webview.cspSource,
      nonce: crypto.randomBytes(18).toString('base64url'),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css')).toString(),
    });
    return panel;
  }

  private receive(raw: unknown): void {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.log.warn(`graph view sent a malformed message: ${parsed.error}`);
      return;
    }
    void this.handle(parsed.value).catch((error: unknown) => this.log.error(`graph view request failed: ${String(error)}`));
  }

  private async handle(message: WebviewToExtensionMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        await this.replay();
        return;
      case 'revealNode':
      case 'revealEdge':
      case 'revealRange':
        await revealInEditor(message.uri, message.range, this.panel?.viewColumn);
        return;
      case 'toggleBreakpoint':
        toggleBreakpoint(vscode.Uri.parse(message.uri), message.target.range);
        return;
      case 'answerGate': {
        const gate = this.openGates.get(message.gateId);
        if (!gate) return;
        this.openGates.delete(message.gateId);
        gate.respond(message.answer);
        return;
      }
      case 'pickAttachments': {
        if (!this.openGates.has(message.gateId)) return;
        const files = await pickAttachmentFiles();
        if (files.length > 0 && this.openGates.has(message.gateId)) this.post({ type: 'gateAttachments', gateId: message.gateId, files });
        return;
      }
      case 'requestVisit':
        if (this.runDirectory) this.post(visitArtifactsMessage(this.runDirectory, message.iteration, message.nodeId, message.visit));
        return;
      case 'openFileDiff':
        if (this.runDirectory) await openVisitFileDiff(this.runDirectory, message, message.path);
        return;
      case 'rerunFrom': {
        const target = this.runDirectory ? rerunTarget(this.runDirectory, message.iteration, message.nodeId, message.visit) : undefined;
        if (target) await vscode.commands.executeCommand('attractor.rerunFrom', this.runDirectory, target);
        return;
      }
      case 'openRun':
        await vscode.commands.executeCommand('attractor.openRun');
        return;
      case 'exportImage':
        await saveImage(message.format, message.data);
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(message.text);
        return;
      case 'protocolError':
        this.log.warn(`graph view rejected a message: ${message.error}`);
        return;
    }
  }

  private async replay(): Promise<void> {
    this.post({ type: 'settings', layoutEngine: this.settings().layoutEngine });
    if (this.documentUri) {
      this.sendDocument(await vscode.workspace.openTextDocument(this.documentUri));
      void this.sendBreakpoints();
    }
    if (this.lastGraphState) this.post(this.lastGraphState);
    if (this.lastSelection) this.post(this.lastSelection);
    const trace = this.trace;
    this.trace = [];
    for (const message of trace) this.post(message);
    for (const gate of this.openGates.values()) void this.panel?.webview.postMessage(gate.message);
  }

  private sendDocument(document: vscode.TextDocument): void {
    if (this.ready) void this.panel?.webview.postMessage({ type: 'document', uri: document.uri.toString(), version: document.version, text: document.getText() } satisfies ExtensionToWebviewMessage);
  }

  /** The breakpoints of the shown pipeline as the graph marks them: the language server says which statement each line is. */
  private async sendBreakpoints(): Promise<void> {
    if (!this.ready || !this.documentUri) return;
    const uri = this.documentUri;
    const lines = vscode.debug.breakpoints
      .filter((bp): bp is vscode.SourceBreakpoint => bp instanceof vscode.SourceBreakpoint && bp.enabled && bp.location.uri.toString() === uri.toString())
      .map((bp) => bp.location.range.start.line);
    const asked = ++this.breakpointsAsked;
    const targets = lines.length === 0 ? { nodes: [], edges: [] } : await this.queries.breakpointTargets(uri, lines);
    if (!targets || asked !== this.breakpointsAsked || !this.ready) return;
    void this.panel?.webview.postMessage({ type: 'breakpoints', ...targets } satisfies ExtensionToWebviewMessage);
  }
}

function toRange(range: WireRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

async function revealInEditor(uri: string, range: WireRange, graphColumn: vscode.ViewColumn | undefined): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  const target = toRange(range);
  // Reveal in the editor group that already shows the file, never over the graph view itself
  // (when it is alone in the first group, the file opens beside it).
  const visible = vscode.window.visibleTextEditors.find((editor) => editor.document.uri.toString() === document.uri.toString());
  const column = visible?.viewColumn ?? (graphColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Beside : vscode.ViewColumn.One);
  await vscode.window.showTextDocument(document, { viewColumn: column, selection: target, preserveFocus: false });
}

/** Through the debug API, so the breakpoint shows in the Breakpoints view and the gutter like any other. */
function toggleBreakpoint(uri: vscode.Uri, range: WireRange): void {
  const line = range.start.line;
  const existing = vscode.debug.breakpoints.filter((bp): bp is vscode.SourceBreakpoint => bp instanceof vscode.SourceBreakpoint && bp.location.uri.toString() === uri.toString() && bp.location.range.start.line === line);
  if (existing.length > 0) vscode.debug.removeBreakpoints(existing);
  else vscode.debug.addBreakpoints([new vscode.SourceBreakpoint(new vscode.Location(uri, new vscode.Position(line, 0)))]);
}

async function saveImage(format: 'svg' | 'png', data: string): Promise<void> {
  const target = await vscode.window.showSaveDialog({ filters: format === 'svg' ? { SVG: ['svg'] } : { PNG: ['png'] } });
  if (!target) return;
  const bytes = format === 'svg' ? Buffer.from(data, 'utf8') : Buffer.from(data.replace(/^data:image\/png;base64,/, ''), 'base64');
  await vscode.workspace.fs.writeFile(target, bytes);
}
