import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { GraphEdge } from '../engine/model/graph';
import type { ContextValues } from '../engine/runtime/context';
import { RunContext } from '../engine/runtime/context';
import type { RunEvent } from '../engine/runtime/events';
import type { GateReply } from '../engine/runtime/interviewer';
import { ServeClient, ServeRequestError } from '../host/serve/serve-client';
import type { BreakpointBook } from './breakpoints';
import { LeaseHeartbeat } from './lease-heartbeat';
import type { AttractorAttachArguments } from '../host/protocol/debug';
import type { SourceCatalog } from '../host/source-catalog';
import type { HeldState, PipelineSummary } from '../host/protocol/serve-api';

/** Why the attached run stands still, as the debugger shows it. */
export interface RemoteStop {
  readonly reason: 'breakpoint' | 'step' | 'pause';
  readonly description: string;
  readonly hitBreakpointIds?: readonly number[];
}

export type AttachmentEnd = { readonly kind: 'finished'; readonly status: string } | { readonly kind: 'lost'; readonly message: string };

/** What the attachment tells the session; the session turns it into DAP events. */
export interface AttachmentListener {
  stopped(stop: RemoteStop): void;
  /** The server let the run go without this debugger asking (another client, a cancel). */
  continued(): void;
  logpoint(message: string): void;
  /** Something went wrong talking to the server; the attachment goes on. */
  warning(message: string): void;
  /** Every engine event of the run, from its first (console, graph view, trace, gates). */
  runEvent(event: RunEvent): void;
  ended(end: AttachmentEnd): void;
}

/** The server and the run an `attach` request names: `runId`, else the newest run still running. */
export async function findRun(args: AttractorAttachArguments, token: string | undefined): Promise<{ readonly client: ServeClient; readonly run: PipelineSummary }> {
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
export async function localProgram(args: AttractorAttachArguments, client: ServeClient, run: PipelineSummary): Promise<string> {
  if (args.program !== undefined) return path.resolve(args.program);
  if (run.sourcePath && fs.existsSync(run.sourcePath)) return run.sourcePath;
  const copy = path.join(os.tmpdir(), `attractor-attach-${run.id}`, `${run.graphName ?? 'pipeline'}.dot`);
  fs.mkdirSync(path.dirname(copy), { recursive: true });
  fs.writeFileSync(copy, await client.source(run.id));
  return copy;
}

/**
 * A run on a server followed by the debugger: the server holds it at the nodes and edges that
 * carry breakpoints; conditions, hit counts and logpoints are decided here, against the held
 * boundary's context, and a hold no breakpoint wants is released at once.
 */
export class RemoteAttachment {
  private current: HeldState | null = null;
  /** Whether the client was told the run stopped (and not yet that it runs again). */
  private shownStopped = false;
  private readonly following = new AbortController();
  /** Holds are handled one at a time, in stream order. */
  private holds: Promise<void> = Promise.resolve();
  private ended = false;
  private readonly heartbeat: LeaseHeartbeat;

  constructor(
    private readonly client: ServeClient,
    readonly run: PipelineSummary,
    readonly program: string,
    private readonly breakpoints: BreakpointBook,
    private readonly sources: SourceCatalog,
    private readonly listener: AttachmentListener,
  ) {
    this.heartbeat = new LeaseHeartbeat(() => this.client.renewLease(this.run.id), (message) => this.listener.warning(message));
  }

  get held(): HeldState | null {
    return this.current;
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
          this.listener.runEvent(event);
          // A server that only follows this run (`attractor run --serve`) stops with it: its last event is the verdict.
          if (event.type === 'run:end') this.end({ kind: 'finished', status: event.status });
        },
        { signal: this.following.signal },
      )
      .then(
        async (ending) => {
          if (ending === 'finished') this.end({ kind: 'finished', status: (await this.client.get(this.run.id)).status });
        },
        (error: unknown) => this.end({ kind: 'lost', message: error instanceof Error ? error.message : String(error) }),
      )
      .catch((error: unknown) => this.end({ kind: 'lost', message: String(error) }));
  }

  /** The server heard nothing from us for a whole lease (this machine asleep, the network gone): we are still here. */
  private leaseLapsed(periodMs: number): void {
    this.listener.warning(`the server heard nothing from this debugger for ${periodMs / 1000} s, so it dropped the breakpoints and let the run go; sending them again`);
    this.pushBreakpoints().catch((error: unknown) => this.listener.warning(`sending the breakpoints again: ${error instanceof Error ? error.message : String(error)}`));
  }

  private end(end: AttachmentEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.heartbeat.stop();
    this.following.abort(new Error('the run is over'));
    this.listener.ended(end);
  }

  /** Tells the server where to hold the run (the program's breakpoints changed). */
  async pushBreakpoints(): Promise<void> {
    const loaded = this.sources.load(this.program);
    await this.client.setBreakpoints(this.run.id, this.breakpoints.placesIn(this.program, loaded.ok ? loaded.graph.edges : []));
  }

  continue(): Promise<void> {
    return this.release('run');
  }

  /** Runs to the next node boundary of the run. */
  next(): Promise<void> {
    return this.release('step');
  }

  async pause(): Promise<void> {
    await this.client.pause(this.run.id);
  }

  /** The held boundary's context (the latest checkpoint's while the run is not held). */
  context(): Promise<ContextValues> {
    return this.client.context(this.run.id);
  }

  async answer(gateId: string, reply: GateReply): Promise<void> {
    if (reply.kind !== 'skipped' && reply.attachments?.length) throw new Error('attachments cannot be sent with an answer to a run on a server');
    await this.client.answer(this.run.id, gateId, reply);
  }

  /** Detach: the run goes on without breakpoints; `terminate` cancels it instead. */
  async detach(terminate: boolean): Promise<void> {
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
    this.holds = this.holds.then(() => this.onHold(held)).catch((error: unknown) => this.listener.warning(`following the server's hold: ${error instanceof Error ? error.message : String(error)}`));
  }

  private async onHold(held: HeldState | null): Promise<void> {
    this.current = held;
    if (!held) {
      if (this.shownStopped) this.listener.continued();
      this.shownStopped = false;
      return;
    }
    const where = held.kind === 'node' ? held.nodeId : `${held.edge.from} -> ${held.edge.to}`;
    if (held.reason !== 'breakpoint') return this.show({ reason: held.reason, description: `${held.reason === 'step' ? 'stepped to' : 'paused at'} ${where} on ${this.client.url}` });
    const hits = this.hitsAt(held, new RunContext(await this.context()));
    for (const message of hits.logs) this.listener.logpoint(message);
    if (hits.stopIds.length > 0) return this.show({ reason: 'breakpoint', description: `breakpoint at ${where} on ${this.client.url}`, hitBreakpointIds: hits.stopIds });
    try {
      await this.client.release(this.run.id, 'run');
    } catch (error) {
      // Someone else let it go first.
      if (!(error instanceof ServeRequestError && error.status === 409)) throw error;
    }
  }

  private hitsAt(held: HeldState, context: RunContext): { readonly stopIds: readonly number[]; readonly logs: readonly string[] } {
    if (held.kind === 'node') return this.breakpoints.nodeHits(this.program, held.nodeId, held.visit, context);
    const edge = this.edgeOf(held);
    return edge ? this.breakpoints.edgeHits(this.program, edge, context) : { stopIds: [], logs: [] };
  }

  /** The line of the program's edge a server holds on, in this machine's copy of the program. */
  private edgeLine(held: Extract<HeldState, { kind: 'edge' }>): number | undefined {
    const edge = this.edgeOf(held);
    return edge ? this.sources.lineOf(this.program, edge.range) : undefined;
  }

  /** The program's edge a server holds on (found by its ends: the program may be this machine's copy). */
  private edgeOf(held: Extract<HeldState, { kind: 'edge' }>): GraphEdge | undefined {
    const loaded = this.sources.load(this.program);
    return loaded.ok ? loaded.graph.edges.find((e) => e.from === held.edge.from && e.to === held.edge.to) : undefined;
  }

  private show(stop: RemoteStop): void {
    this.shownStopped = true;
    this.listener.stopped(stop);
  }

  /** Where the held run stands, for the stack: a node's or an edge's line of the program. */
  location(): { readonly name: string; readonly line: number } | undefined {
    const held = this.current;
    if (!held) return undefined;
    if (held.kind === 'node') return { name: held.nodeId, line: this.sources.nodeLine(this.program, held.nodeId) ?? 0 };
    return { name: `${held.edge.from} -> ${held.edge.to}`, line: this.edgeLine(held) ?? this.sources.nodeLine(this.program, held.nodeId) ?? 0 };
  }
}
