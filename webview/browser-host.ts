// The graph view's host in a browser: `attractor serve` instead of the extension. The run's events
// arrive over SSE and become the view's messages through the same projection every face uses
// (host/view/run-projection.ts); the view's intents become calls to the server's HTTP API.
import type { RunEvent } from '../engine/runtime/events';
import type { GateReply } from '../engine/runtime/interviewer';
import { pipelineSummary, runView, traceRecords, visitRecords } from '../host/protocol/serve-schemas';
import type { PipelineSummary, ServedEvent } from '../host/protocol/serve-api';
import { parseExtensionMessage, type ExtensionToWebviewMessage, type WebviewToExtensionMessage } from '../host/protocol/webview';
import { RunProjection } from '../host/view/run-projection';
import { followEvents } from './event-stream';
import type { ViewHost } from './host';
import { call, describeFailure, json, pipelinePath } from './server-api';
import { parseViewState, type ViewState } from './view-state';

export interface RunPageHooks {
  /** Something the person should read: a refused call, a gate answered elsewhere. */
  notify(text: string): void;
  /** The run's summary changed (it started, asked, was answered, ended). */
  changed(summary: PipelineSummary): void;
  /** Show one file of a visit before ↔ after it. */
  showFileDiff(visit: { iteration: number; nodeId: string; visit?: number }, path: string): void;
  /** Start a branch run from before a visit. */
  rerunFrom(visit: { iteration: number; nodeId: string; visit?: number }): void;
}

/** Events after which the summary (status, current node, gates waiting) is worth asking for again. */
const SUMMARY_EVENTS: ReadonlySet<string> = new Set(['run:start', 'run:end', 'node:start', 'human:question', 'human:answer', 'hold']);

export class BrowserHost implements ViewHost {
  private readonly projection = new RunProjection();
  private deliver: (message: ExtensionToWebviewMessage) => void = () => undefined;
  /** The files a person picked for each open gate, by name (the gate panel shows and sends names). */
  private readonly picked = new Map<string, Map<string, File>>();
  private readonly stateKey: string;
  /** The server's word (its summaries' `continuable`): false on one that hands its runs to Restate. */
  rerunsVisits = true;

  constructor(
    private readonly runId: string,
    private readonly hooks: RunPageHooks,
  ) {
    this.stateKey = `attractor-view:${runId}`;
  }

  get savedState(): ViewState | undefined {
    try {
      return parseViewState(JSON.parse(sessionStorage.getItem(this.stateKey) ?? 'null'));
    } catch {
      return undefined;
    }
  }

  saveState(state: ViewState): void {
    sessionStorage.setItem(this.stateKey, JSON.stringify(state));
  }

  listen(handler: (message: ExtensionToWebviewMessage) => void, onRejected: (error: string) => void): void {
    this.deliver = (message) => {
      const result = parseExtensionMessage(message);
      if (result.ok) handler(result.value);
      else onRejected(result.error);
    };
  }

  post(message: WebviewToExtensionMessage): void {
    void this.act(message).catch((error: unknown) => this.hooks.notify(describeFailure(error)));
  }

  private async act(message: WebviewToExtensionMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        return this.start();
      case 'answerGate':
        return this.answer(message.gateId, message.answer);
      case 'pickAttachments':
        return this.pick(message.gateId);
      case 'requestVisit': {
        const query = new URLSearchParams({ iteration: String(message.iteration), node: message.nodeId, ...(message.visit !== undefined ? { visit: String(message.visit) } : {}) });
        const files = await json(visitRecords, 'GET', `${pipelinePath(this.runId)}/visit?${query}`);
        this.deliver({ type: 'visitArtifacts', ...files });
        return;
      }
      case 'openFileDiff':
        return this.hooks.showFileDiff(message, message.path);
      case 'rerunFrom':
        return this.hooks.rerunFrom(message);
      case 'openRun':
        window.location.assign('./');
        return;
      case 'exportImage':
        return download(message.format === 'svg' ? URL.createObjectURL(new Blob([message.data], { type: 'image/svg+xml' })) : message.data, `${this.runId}.${message.format}`);
      case 'copy':
        return navigator.clipboard.writeText(message.text);
      case 'protocolError':
        console.warn(`the graph view rejected a message: ${message.error}`);
        return;
      // The page has no editor to reveal a node in, and a served run's breakpoints belong to its debugger.
      case 'revealNode':
      case 'revealEdge':
      case 'revealRange':
      case 'toggleBreakpoint':
        return;
    }
  }

  /** The run's source, then its state: followed live while it has events, else replayed from its trace. */
  private async start(): Promise<void> {
    const path = pipelinePath(this.runId);
    const source = await (await call('GET', `${path}/source`)).text();
    this.deliver({ type: 'document', uri: `attractor-run:${this.runId}`, version: 1, text: source });
    const summary = await this.refresh();
    if (summary.lastEventId === 0 && summary.status !== 'running') {
      // A run of an earlier server that stored no events (it was interrupted): the server read where it got from its trace.
      const [{ records }, view] = await Promise.all([json(traceRecords, 'GET', `${path}/trace`), json(runView, 'GET', `${path}/view`)]);
      this.deliver({ type: 'graphState', ...view });
      this.deliver({ type: 'traceEntries', entries: [...records], replace: true });
      return;
    }
    await followEvents(
      `${path}/events`,
      (message) => this.observe(JSON.parse(message.data) as ServedEvent),
      async () => (await this.refresh()).status !== 'running',
    );
  }

  private observe(event: ServedEvent): void {
    if (event.type === 'hold') this.deliver(this.projection.setPaused(event.held !== null, event.held?.nodeId));
    else if (event.type !== 'lease:lapsed') for (const message of this.projection.apply(event as RunEvent)) this.deliver(message);
    if (SUMMARY_EVENTS.has(event.type)) void this.refresh().catch(() => undefined);
  }

  private async refresh(): Promise<PipelineSummary> {
    const summary = await json(pipelineSummary, 'GET', pipelinePath(this.runId));
    this.rerunsVisits = summary.continuable;
    this.hooks.changed(summary);
    return summary;
  }

  /** A file input the person picks from; its files go up with the gate's answer. */
  private pick(gateId: string): void {
    const input = document.createElement('input');
    input.type = 'file';
    input.multiple = true;
    input.addEventListener('change', () => {
      const files = this.picked.get(gateId) ?? new Map<string, File>();
      for (const file of Array.from(input.files ?? [])) files.set(file.name, file);
      this.picked.set(gateId, files);
      this.deliver({ type: 'gateAttachments', gateId, files: [...files.keys()] });
    });
    input.click();
  }

  private async answer(gateId: string, reply: GateReply): Promise<void> {
    const files = this.picked.get(gateId);
    const attachments = reply.kind === 'skipped' ? [] : await Promise.all((reply.attachments ?? []).flatMap((name) => (files?.has(name) ? [upload(files.get(name) as File)] : [])));
    const body = reply.kind === 'option' ? { choice: reply.choice } : reply.kind === 'freeform' ? { text: reply.text } : { skipped: true };
    try {
      await call('POST', `${pipelinePath(this.runId)}/questions/${encodeURIComponent(gateId)}/answer`, { ...body, ...(attachments.length > 0 ? { attachments } : {}) });
      this.picked.delete(gateId);
    } catch (error) {
      // Answered elsewhere (VS Code, another page): the run's events close the gate here too.
      this.hooks.notify(`The answer was not taken: ${describeFailure(error)}`);
    }
  }
}

async function upload(file: File): Promise<{ name: string; base64: string }> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { name: file.name, base64: btoa(binary) };
}

function download(url: string, name: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
}
