import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { Handles } from '@vscode/debugadapter';
import type { GraphEdge } from '../engine/model/graph';
import { RunContext } from '../engine/runtime/context';
import type { RunEvent } from '../engine/runtime/events';
import type { GateReply } from '../engine/runtime/interviewer';
import { ServeClient, ServeRequestError } from '../host/serve/serve-client';
import type { AttractorAttachArguments } from '../host/protocol/debug';
import type { HeldState, PipelineSummary } from '../host/protocol/serve-api';
import type { RunTarget, RunTargetEvents, TargetFrame } from '../host/run-target';
import { TargetRefusal } from '../host/run-target';
import type { SourceCatalog } from '../host/source-catalog';
import { humanGateMessage } from '../host/view/run-projection';
import type { BreakpointBook } from './breakpoints';
import { LeaseHeartbeat } from './lease-heartbeat';
import { notEditable, notLaunched, notPausedForTravel } from './refusals';
import { RunFeed } from './run-feed';
import { FRAME_STRIDE, MAIN_THREAD_ID } from './threads';
import { attachedRunVariables, contextVariables, heldOutcomeVariables, scopeTitles } from './variables';

/**
 * What `initialize` offers that a run followed on a server cannot do: time travel, restart, setVariable,
 * step-in targets, exception filters and LLM-call progress work on a run in this process only.
 */
export const NOT_WHEN_ATTACHED: DebugProtocol.Capabilities = {
  supportsSetVariable: false,
  supportsStepBack: false,
  supportsRestartFrame: false,
  supportsRestartRequest: false,
  supportsStepInTargetsRequest: false,
  supportsExceptionInfoRequest: false,
  supportsSingleThreadExecutionRequests: false,
  supportsCancelRequest: false,
  exceptionBreakpointFilters: [],
};

/** Why the attached run stands still, as the debugger shows it. */
interface RemoteStop {
  readonly reason: 'breakpoint' | 'step' | 'pause';
  readonly description: string;
  readonly hitBreakpointIds?: readonly number[];
}

type AttachmentEnd = { readonly kind: 'finished'; readonly status: string } | { readonly kind: 'lost'; readonly message: string };

/** The scopes of a held boundary: what the server's HTTP API shows of it. */
type HeldScope = 'context' | 'outcome' | 'run';

/** What the remote target shares with the session: where breakpoints are, and the program's lines. */
export interface RemoteTargetSettings {
  readonly breakpoints: BreakpointBook;
  readonly sources: SourceCatalog;
}

/**
 * A run on a server followed by the debugger: the server holds it at the nodes and edges that
 * carry breakpoints; conditions, hit counts and logpoints are decided here, against the held
 * boundary's context, and a hold no breakpoint wants is released at once. It has one thread, and
 * no time travel, restart or Context edits (NOT_WHEN_ATTACHED).
 */
export class RemoteRunTarget implements RunTarget {
  private current: HeldState | null = null;
  /** Whether the client was told the run stopped (and not yet that it runs again). */
  private shownStopped = false;
  private readonly following = new AbortController();
  /** Holds are handled one at a time, in stream order. */
  private holds: Promise<void> = Promise.resolve();
  private ended = false;
  private readonly heartbeat: LeaseHeartbeat;
  private readonly feed: RunFeed;
  private readonly scopeHandles = new Handles<HeldScope>();
  /** The open gate of each node: a human:answer names its node, the graph view its gate. */
  private readonly gates = new Map<string, string>();

  /** The server and the run `attach` names, and the .dot file here that breakpoints and frames refer to. */
  static async connect(args: AttractorAttachArguments, token: string | undefined, settings: RemoteTargetSettings, events: RunTargetEvents): Promise<RemoteRunTarget> {
    const { client, run } = await findRun(args, token);
    return new RemoteRunTarget(client, run, await localProgram(args, client, run), settings, events);
  }

  private constructor(
    private readonly client: ServeClient,
    readonly run: PipelineSummary,
    readonly program: string,
    private readonly settings: RemoteTargetSettings,
    private readonly events: RunTargetEvents,
  ) {
    this.heartbeat = new LeaseHeartbeat(() => this.client.renewLease(this.run.id), (message) => this.warn(message));
    this.feed = new RunFeed(events, program, () => run.logsRoot);
  }

  get serverUrl(): string {
    return this.client.url;
  }

  /** Sends the breakpoints (which takes the lease), keeps the lease, takes the run's current hold, then follows its events from the first. */
  async start(): Promise<void> {
    await this.pushBreakpoints();
    // A server from before leases reports none.
    this.heartbeat.start((this.run as Partial<PipelineSummary>).attachLease?.periodMs);
    // The summary's hold is the state after its lastEventId; only later holds come from the stream.
    const baseline = this.run.lastEventId;
    this.enqueueHold(this.run.held);
    this.client
      .follow(
        this.run.id,
        ({ id, event }) => {
          if (event.type === 'hold') {
            if (id > baseline) this.enqueueHold(event.held);
            return;
          }
          if (event.type === 'lease:lapsed') {
            if (id > baseline && !this.ended) this.leaseLapsed(event.periodMs);
            return;
          }
          this.onRunEvent(event);
          // A server that only follows this run (`attractor run --serve`) stops with it: its last event is the verdict.
          if (event.type === 'run:end') this.end({ kind: 'finished', status: event.status });
        },
        { signal: this.following.signal },
      )
      .then(
        async (ending) => {
          if (ending === 'finished') this.end({ kind: 'finished', status: (await this.client.get(this.run.id)).status });
        },
        (error: unknown) => this.end({ kind: 'lost', message: errorMessage(error) }),
      )
      .catch((error: unknown) => this.end({ kind: 'lost', message: String(error) }));
  }

  // ---- inspection ----

  threads() {
    return [{ id: MAIN_THREAD_ID, name: `${this.run.graphName ?? 'run'} (${this.run.id})` }];
  }

  /** Where the held run stands: a node's or an edge's line of the program. */
  stack(): TargetFrame[] {
    const held = this.current;
    if (!held) return [];
    const frame = { id: MAIN_THREAD_ID * FRAME_STRIDE, file: this.program };
    const { sources } = this.settings;
    if (held.kind === 'node') return [{ ...frame, name: held.nodeId, line: sources.nodeLine(this.program, held.nodeId) ?? 0 }];
    const edge = this.edgeOf(held);
    const line = (edge ? sources.lineOf(this.program, edge.range) : undefined) ?? sources.nodeLine(this.program, held.nodeId) ?? 0;
    return [{ ...frame, name: `${held.edge.from} -> ${held.edge.to}`, line }];
  }

  scopes(): DebugProtocol.Scope[] {
    const kinds: HeldScope[] = this.current ? ['context', 'outcome', 'run'] : [];
    return kinds.map((kind) => ({ name: scopeTitles[kind], variablesReference: this.scopeHandles.create(kind), expensive: false }));
  }

  async variables(reference: number): Promise<DebugProtocol.Variable[]> {
    const held = this.current;
    if (!held) return [];
    try {
      switch (this.scopeHandles.get(reference)) {
        case 'context':
          return contextVariables(new RunContext(await this.client.context(this.run.id)));
        case 'outcome':
          return heldOutcomeVariables(held.lastOutcome);
        case 'run':
          return attachedRunVariables(this.run, this.client.url, held);
        case undefined:
          return [];
      }
    } catch (error) {
      throw new TargetRefusal(1019, `the server did not answer: ${errorMessage(error)}`);
    }
  }

  setVariable(): string {
    throw notEditable();
  }

  /** The held boundary's context; none while the run goes on (or the server does not answer). */
  async context(): Promise<RunContext | undefined> {
    if (!this.current) return undefined;
    return this.client.context(this.run.id).then((values) => new RunContext(values), () => undefined);
  }

  exception(): undefined {
    return undefined;
  }

  stepInTargets(): [] {
    return [];
  }

  /** An attached session's breakpoints live on the server too: it holds the run where they are. */
  breakpointsChanged(): void {
    this.pushBreakpoints().catch((error: unknown) => this.warn(`the server did not take the breakpoints: ${errorMessage(error)}`));
  }

  // ---- execution: the server holds the run at node boundaries only ----

  continue(): Promise<void> {
    return this.control(() => this.release('run'));
  }

  next(): Promise<void> {
    return this.control(() => this.release('step'));
  }

  /** Stepping in is stepping to the next node boundary. */
  stepIn(): Promise<void> {
    return this.next();
  }

  stepOut(): Promise<void> {
    return this.continue();
  }

  pause(): Promise<void> {
    return this.control(() => this.client.pause(this.run.id));
  }

  answer(gateId: string, reply: GateReply): Promise<void> {
    return this.control(async () => {
      if (reply.kind !== 'skipped' && reply.attachments?.length) throw new Error('attachments cannot be sent with an answer to a run on a server');
      await this.client.answer(this.run.id, gateId, reply);
    });
  }

  cancelProgress(): void {}

  restart(): never {
    throw notLaunched();
  }

  restartFrame(): never {
    throw notPausedForTravel();
  }

  stepBack(): never {
    throw notPausedForTravel();
  }

  reverseContinue(): never {
    throw notPausedForTravel();
  }

  /** Cancels the run on the server. */
  terminate(): Promise<void> {
    return this.control(() => this.detach(true));
  }

  /** Detaches: the run goes on without breakpoints, unless `terminateDebuggee` cancels it. */
  async disconnect(terminateDebuggee: boolean): Promise<void> {
    await this.detach(terminateDebuggee).catch((error: unknown) => this.events.output({ category: 'stderr', text: `attractor: detaching: ${String(error)}\n` }));
  }

  // ---- following the run ----

  /** Runs an execution request against the server; its refusal is the request's. */
  private async control(act: () => Promise<unknown>): Promise<void> {
    try {
      await act();
    } catch (error) {
      throw new TargetRefusal(1018, errorMessage(error));
    }
    this.scopeHandles.reset();
  }

  private onRunEvent(event: RunEvent): void {
    this.feed.event(event);
    if (event.type === 'human:question') {
      this.gates.set(event.nodeId, event.question.id);
      const { type: _type, ...gate } = humanGateMessage(event.question);
      this.events.view('humanGate', { ...gate, threadId: MAIN_THREAD_ID });
    }
    const answered = event.type === 'human:answer' ? this.gates.get(event.nodeId) : undefined;
    if (answered && event.type === 'human:answer') {
      this.gates.delete(event.nodeId);
      this.events.view('humanGateClosed', { gateId: answered });
    }
  }

  /** The server heard nothing from us for a whole lease (this machine asleep, the network gone): we are still here. */
  private leaseLapsed(periodMs: number): void {
    this.warn(`the server heard nothing from this debugger for ${periodMs / 1000} s, so it dropped the breakpoints and let the run go; sending them again`);
    this.pushBreakpoints().catch((error: unknown) => this.warn(`sending the breakpoints again: ${errorMessage(error)}`));
  }

  private end(end: AttachmentEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.heartbeat.stop();
    this.following.abort(new Error('the run is over'));
    if (end.kind === 'lost') this.events.output({ category: 'stderr', text: `attractor: lost the server: ${end.message}\n` });
    this.feed.flush();
    this.events.ended(end.kind === 'lost' ? undefined : end.status === 'success' ? 0 : 1);
  }

  /** Tells the server where to hold the run (the program's breakpoints changed). */
  private async pushBreakpoints(): Promise<void> {
    const loaded = this.settings.sources.load(this.program);
    await this.client.setBreakpoints(this.run.id, this.settings.breakpoints.placesIn(this.program, loaded.ok ? loaded.graph.edges : []));
  }

  private async detach(terminate: boolean): Promise<void> {
    this.following.abort(new Error('detached'));
    this.heartbeat.stop();
    if (this.ended) return;
    try {
      if (terminate) await this.client.cancel(this.run.id);
      else {
        await this.client.setBreakpoints(this.run.id, { nodes: [], edges: [] });
        if (this.current) await this.client.release(this.run.id, 'run');
      }
    } catch (error) {
      // A run that finished meanwhile needs nothing more.
      if (!(error instanceof ServeRequestError && error.status === 409)) throw error;
    }
  }

  private async release(mode: 'run' | 'step'): Promise<void> {
    this.shownStopped = false;
    await this.client.release(this.run.id, mode);
  }

  private enqueueHold(held: HeldState | null): void {
    this.holds = this.holds.then(() => this.onHold(held)).catch((error: unknown) => this.warn(`following the server's hold: ${errorMessage(error)}`));
  }

  private async onHold(held: HeldState | null): Promise<void> {
    this.current = held;
    if (!held) {
      if (this.shownStopped) {
        this.feed.showPaused(false);
        this.events.continued(MAIN_THREAD_ID, true);
      }
      this.shownStopped = false;
      return;
    }
    const where = held.kind === 'node' ? held.nodeId : `${held.edge.from} -> ${held.edge.to}`;
    if (held.reason !== 'breakpoint') return this.show({ reason: held.reason, description: `${held.reason === 'step' ? 'stepped to' : 'paused at'} ${where} on ${this.client.url}` });
    const hits = this.hitsAt(held, new RunContext(await this.client.context(this.run.id)));
    for (const message of hits.logs) this.events.output({ category: 'console', text: `${message}\n` });
    if (hits.stopIds.length > 0) return this.show({ reason: 'breakpoint', description: `breakpoint at ${where} on ${this.client.url}`, hitBreakpointIds: hits.stopIds });
    try {
      await this.client.release(this.run.id, 'run');
    } catch (error) {
      // Someone else let it go first.
      if (!(error instanceof ServeRequestError && error.status === 409)) throw error;
    }
  }

  private hitsAt(held: HeldState, context: RunContext): { readonly stopIds: readonly number[]; readonly logs: readonly string[] } {
    const { breakpoints } = this.settings;
    if (held.kind === 'node') return breakpoints.nodeHits(this.program, held.nodeId, held.visit, context);
    const edge = this.edgeOf(held);
    return edge ? breakpoints.edgeHits(this.program, edge, context) : { stopIds: [], logs: [] };
  }

  /** The program's edge a server holds on (found by its ends: the program may be this machine's copy). */
  private edgeOf(held: Extract<HeldState, { kind: 'edge' }>): GraphEdge | undefined {
    const loaded = this.settings.sources.load(this.program);
    return loaded.ok ? loaded.graph.edges.find((e) => e.from === held.edge.from && e.to === held.edge.to) : undefined;
  }

  private show(stop: RemoteStop): void {
    this.shownStopped = true;
    this.scopeHandles.reset();
    this.feed.showPaused(true, this.current?.nodeId);
    this.events.stopped({ threadId: MAIN_THREAD_ID, reason: stop.reason, text: stop.description, ...(stop.hitBreakpointIds ? { hitBreakpointIds: stop.hitBreakpointIds } : {}), allThreadsStopped: true });
  }

  private warn(message: string): void {
    this.events.output({ category: 'stderr', text: `attractor: ${message}\n` });
  }
}

/** The server and the run an `attach` request names: `runId`, else the newest run still running. */
async function findRun(args: AttractorAttachArguments, token: string | undefined): Promise<{ readonly client: ServeClient; readonly run: PipelineSummary }> {
  const client = new ServeClient({ url: args.url, ...(token ? { token } : {}) });
  if (args.runId !== undefined) return { client, run: await client.get(args.runId) };
  const running = (await client.list()).filter((run) => run.status === 'running').sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const newest = running[0];
  if (!newest) throw new Error(`no run is running on ${args.url}: start one, or name a finished one with "runId"`);
  return { client, run: newest };
}

/**
 * The .dot file on this machine that breakpoints and stack frames refer to: the configured one,
 * the run's own file when this machine has it, else a copy of the source the server runs.
 */
async function localProgram(args: AttractorAttachArguments, client: ServeClient, run: PipelineSummary): Promise<string> {
  if (args.program !== undefined) return path.resolve(args.program);
  if (run.sourcePath && fs.existsSync(run.sourcePath)) return run.sourcePath;
  const copy = path.join(os.tmpdir(), `attractor-attach-${run.id}`, `${run.graphName ?? 'pipeline'}.dot`);
  fs.mkdirSync(path.dirname(copy), { recursive: true });
  fs.writeFileSync(copy, await client.source(run.id));
  return copy;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
