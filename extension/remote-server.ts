// VS Code attached to an `attractor serve` server (*Attractor: Connect to server…*): its address and
// token in SecretStorage, its runs in the Runs view, a run opened in the graph view and followed
// live over SSE, its gates asked here and answered over HTTP.
import fs from 'node:fs';
import * as vscode from 'vscode';
import { DEBUG_TYPE } from '../host/protocol/debug';
import { ServeClient } from '../host/serve/serve-client';
import type { ConnectedServer } from './debug-configuration';
import { askInVsCode } from './gate-prompt';
import type { GraphPanel } from './graph-panel';
import { LANGUAGE_ID } from './language-client';
import { followRemoteRun } from './remote-run';
import { describeRemoteRun, remoteRunLabel, ServerRuns } from './remote-runs-model';
import type { PipelineSummary } from '../host/protocol/serve-api';

const URL_KEY = 'attractor.server.url';
const TOKEN_KEY = 'attractor.server.token';
/** How often the Runs view asks the server for its list while connected. */
const REFRESH_MS = 2000;
/** Read-only documents holding a remote run's source (the server's file may not be on this machine). */
const REMOTE_SCHEME = 'attractor-remote';

export class RemoteServer implements vscode.Disposable {
  private runs: ServerRuns | undefined;
  private timer: NodeJS.Timeout | undefined;
  private following: AbortController | undefined;
  private readonly sources = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** The Runs view redraws on this. */
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly panel: GraphPanel,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(REMOTE_SCHEME, { provideTextDocumentContent: (uri) => this.sources.get(uri.toString()) ?? '' });
  }

  /** The connected server's runs, if connected. */
  get server(): ServerRuns | undefined {
    return this.runs;
  }

  /** Reconnects to the server an earlier session connected to. */
  async restore(): Promise<void> {
    const url = await this.secrets.get(URL_KEY);
    if (!url) return;
    const token = await this.secrets.get(TOKEN_KEY);
    try {
      this.attach(new ServeClient({ url, ...(token ? { token } : {}) }));
    } catch (error) {
      this.log.warn(`stored server address ${url} is unusable: ${String(error)}`);
    }
  }

  async connect(): Promise<void> {
    const url = await vscode.window.showInputBox({
      title: 'Attractor: Connect to server',
      prompt: 'The address `attractor serve` printed (http://host:port), or unix:/path/to.sock for `attractor run --serve SOCKET`',
      value: this.runs?.client.url ?? 'http://127.0.0.1:8474',
      ignoreFocusOut: true,
      validateInput: (text) => {
        try {
          new ServeClient({ url: text.trim() });
          return undefined;
        } catch (error) {
          return error instanceof Error ? error.message : String(error);
        }
      },
    });
    if (!url) return;
    const token = await vscode.window.showInputBox({
      title: 'Attractor: Connect to server',
      prompt: 'Bearer token (a server on another address than loopback, or started with --token-file, requires it); empty for none. Kept in VS Code SecretStorage.',
      password: true,
      ignoreFocusOut: true,
    });
    if (token === undefined) return;
    const client = new ServeClient({ url: url.trim(), ...(token.trim() ? { token: token.trim() } : {}) });
    try {
      await client.list();
    } catch (error) {
      void vscode.window.showErrorMessage(`Attractor: cannot list the runs on ${client.url}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    await this.secrets.store(URL_KEY, client.url);
    if (token.trim()) await this.secrets.store(TOKEN_KEY, token.trim());
    else await this.secrets.delete(TOKEN_KEY);
    this.attach(client);
    this.log.info(`connected to ${client.url}`);
    void vscode.window.showInformationMessage(`Attractor: connected to ${client.url}; its runs are in the Runs view.`);
  }

  async disconnect(): Promise<void> {
    await this.secrets.delete(URL_KEY);
    await this.secrets.delete(TOKEN_KEY);
    this.detach();
  }

  /** The connected server and its stored token, for an attach configuration that names none. */
  async connection(): Promise<ConnectedServer | undefined> {
    const url = this.runs?.client.url;
    if (!url) return undefined;
    const token = await this.secrets.get(TOKEN_KEY);
    return { url, ...(token ? { token } : {}) };
  }

  /** Starts the debugger on run `id` of the connected server (the Runs view's "Attach debugger"). */
  async attachDebugger(id: string): Promise<void> {
    const runs = this.runs;
    if (!runs) return void vscode.window.showInformationMessage('Attractor: connect to a server first (Attractor: Connect to server…).');
    await vscode.debug.startDebugging(undefined, { type: DEBUG_TYPE, request: 'attach', name: `Attach to run ${id}`, url: runs.client.url, runId: id });
  }

  /** Opens run `id` (or one picked from the server's runs) in the graph view and follows it live. */
  async open(id: string | undefined): Promise<void> {
    const runs = this.runs;
    if (!runs) return void vscode.window.showInformationMessage('Attractor: connect to a server first (Attractor: Connect to server…).');
    const runId = id ?? (await this.pick(runs));
    if (!runId) return;
    const { client } = runs;
    let summary: PipelineSummary;
    let source: string;
    try {
      [summary, source] = await Promise.all([client.get(runId), client.source(runId)]);
    } catch (error) {
      return void vscode.window.showErrorMessage(`Attractor: cannot open run ${runId} on ${client.url}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const uri = vscode.Uri.from({ scheme: REMOTE_SCHEME, path: `/${runId}/${summary.graphName ?? 'pipeline'}.dot` });
    this.sources.set(uri.toString(), source);
    const document = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(uri), LANGUAGE_ID);
    await this.panel.show(document);
    const stop = new AbortController();
    this.following = stop;
    // A visit's prompt and response are readable when the server runs on this machine.
    this.panel.attachRun(fs.existsSync(summary.logsRoot) ? summary.logsRoot : undefined, () => stop.abort());
    this.log.info(`following ${client.url} run ${runId}`);
    followRemoteRun(
      client,
      runId,
      {
        post: (message) => this.panel.post(message),
        ask: (question, signal) => askInVsCode(this.panel, question, signal),
        onAnswerRefused: (question, reason) => void vscode.window.showWarningMessage(`Attractor: gate ${question.nodeId} did not take the answer: ${reason}`),
      },
      stop.signal,
    )
      .then(
        (ending) => this.log.info(`run ${runId}: ${ending === 'finished' ? 'over' : 'no longer followed'}`),
        (error: unknown) => void vscode.window.showErrorMessage(`Attractor: lost run ${runId} on ${client.url}: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        if (this.following === stop) this.following = undefined;
        void this.runs?.refresh();
      });
  }

  async cancel(id: string): Promise<void> {
    const runs = this.runs;
    if (!runs) return;
    try {
      await runs.client.cancel(id);
    } catch (error) {
      void vscode.window.showWarningMessage(`Attractor: ${error instanceof Error ? error.message : String(error)}`);
    }
    await runs.refresh();
  }

  dispose(): void {
    this.detach();
    this.registration.dispose();
    this.changed.dispose();
  }

  private async pick(runs: ServerRuns): Promise<string | undefined> {
    await runs.refresh();
    const listed = runs.state.kind === 'listed' ? runs.state.runs : [];
    const picked = await vscode.window.showQuickPick(
      listed.map((run) => ({ label: remoteRunLabel(run), description: describeRemoteRun(run), detail: run.id, id: run.id })),
      { title: `Open a run on ${runs.client.url}`, placeHolder: listed.length === 0 ? 'The server has no runs' : 'Which run?' },
    );
    return picked?.id;
  }

  private attach(client: ServeClient): void {
    this.detach();
    const runs = new ServerRuns(client, () => this.changed.fire());
    this.runs = runs;
    void runs.refresh();
    this.timer = setInterval(() => void runs.refresh(), REFRESH_MS);
    this.changed.fire();
  }

  private detach(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.following?.abort();
    this.following = undefined;
    this.runs = undefined;
    this.changed.fire();
  }
}
