import type { EdgeBoundary, EdgeDirective, NodeBoundary, RunController } from '../engine/runtime/controller';
import type { WalkScope } from '../engine/runtime/events';
import { resolveHandlerType } from '../engine/model/handler-types';
import type { Outcome } from '../engine/runtime/outcome';
import type { VisitFiles } from '../engine/runtime/workspace-snapshot';
import { CancelledError } from '../engine/runtime/walker';
import type { BreakpointBook } from './breakpoints';
import type { ExceptionHit } from './exceptions';
import { classifyOutcome } from './exceptions';
import type { ExceptionFilterId } from '../host/protocol/debug';
import type { Release, StepMode, StopInfo, StopPlace, StopReason } from './threads';
import { DebugThread, MAIN_THREAD_ID, threadKeyOf } from './threads';

/** Where a logpoint fired: before a node, or on the edge about to be traversed. */
export type LogpointPlace = { readonly kind: 'node'; readonly boundary: NodeBoundary } | { readonly kind: 'edge'; readonly boundary: EdgeBoundary };

/** What the controller tells the session; the session turns it into DAP events. */
export interface ControllerListener {
  stopped(thread: DebugThread): void;
  logpoint(thread: DebugThread, message: string, at: LogpointPlace): void;
  threadStarted(thread: DebugThread): void;
  threadExited(thread: DebugThread): void;
}

export interface DebugSettings {
  readonly breakpoints: BreakpointBook;
  readonly exceptionFilters: ReadonlySet<ExceptionFilterId>;
}

/**
 * The debugger as the engine sees it: a RunController that decides, at each boundary, whether
 * the walk pauses. One per run; once aborted, every hook throws so the walk unwinds.
 */
export class DebugController implements RunController {
  private readonly threads = new Map<string, DebugThread>();
  private nextThreadId = MAIN_THREAD_ID + 1;
  private aborted = false;
  /** Stop at the first node boundary of the main walk (stopOnEntry, or the node a time-travel landed on). */
  private entryStop: StopReason | undefined;

  constructor(
    private readonly settings: DebugSettings,
    private readonly listener: ControllerListener,
    entryStop?: StopReason,
  ) {
    this.threads.set('main', new DebugThread(MAIN_THREAD_ID, 'main', 'main'));
    this.entryStop = entryStop;
  }

  get main(): DebugThread {
    return this.threads.get('main') as DebugThread;
  }

  allThreads(): DebugThread[] {
    return [...this.threads.values()];
  }

  thread(id: number): DebugThread | undefined {
    return this.allThreads().find((t) => t.id === id);
  }

  threadFor(scope: WalkScope): DebugThread {
    const key = threadKeyOf(scope.id);
    let thread = this.threads.get(key);
    if (!thread) {
      thread = new DebugThread(this.nextThreadId++, key, key.replace(/^main>/, '').replace(/branch:/g, ''));
      // A branch that starts while another thread is stopped is held like the ones already running.
      if (this.allThreads().some((t) => t.place !== undefined && t.place.kind !== 'gate')) thread.mode = { kind: 'pause' };
      this.threads.set(key, thread);
      this.listener.threadStarted(thread);
    }
    return thread;
  }

  /** Ends the threads of the branches a fan-out in `scope` started. */
  exitBranches(scope: WalkScope): void {
    const prefix = `${threadKeyOf(scope.id)}>`;
    for (const [key, thread] of this.threads) {
      if (key.startsWith(prefix) && !key.slice(prefix.length).includes('>branch:')) {
        this.threads.delete(key);
        this.listener.threadExited(thread);
      }
    }
  }

  beforeNode(boundary: NodeBoundary): Promise<void> | void {
    if (this.aborted) throw new CancelledError('the debug session stopped the run');
    const thread = this.threadFor(boundary.scope);
    thread.lastNode = boundary;
    if (boundary.scope.frames.length === 0) thread.lastTopNode = boundary;
    const stop = this.nodeStop(thread, boundary);
    if (stop) return this.halt(thread, { kind: 'node', boundary }, stop);
  }

  afterNode(boundary: NodeBoundary & { readonly outcome: Outcome; readonly files?: VisitFiles }): Promise<void> | void {
    if (this.aborted) throw new CancelledError('the debug session stopped the run');
    const thread = this.threadFor(boundary.scope);
    thread.lastNode = boundary;
    thread.lastOutcome = { nodeId: boundary.nodeId, iteration: boundary.iteration, outcome: boundary.outcome, ...(boundary.files ? { files: boundary.files } : {}) };
    if (this.settings.exceptionFilters.size === 0) return;
    const hit = classifyOutcome(boundary.nodeId, boundary.outcome, this.settings.exceptionFilters);
    if (hit) return this.halt(thread, { kind: 'node-done', boundary, outcome: boundary.outcome }, { reason: 'exception', description: hit.description, exception: hit });
  }

  beforeEdge(boundary: EdgeBoundary): Promise<EdgeDirective | undefined> | EdgeDirective | undefined {
    if (this.aborted) throw new CancelledError('the debug session stopped the run');
    const thread = this.threadFor(boundary.scope);
    const hits = this.settings.breakpoints.edgeHits(boundary.graph.sourcePath, boundary.selected, boundary.context);
    const node = thread.lastNode;
    for (const message of hits.logs) this.listener.logpoint(thread, message, { kind: 'edge', boundary });
    if (hits.stopIds.length > 0 && node) {
      const place: StopPlace = { kind: 'edge', boundary: node, edgeBoundary: boundary, edge: boundary.selected };
      return this.halt(thread, place, { reason: 'breakpoint', hitBreakpointIds: hits.stopIds }).then(() => this.directive(thread, boundary));
    }
    return this.directive(thread, boundary);
  }

  /** Step-in into an LLM node stops before each model call of its agent loop. */
  beforeAgentTurn(boundary: NodeBoundary & { readonly turn: number }): Promise<void> | void {
    if (this.aborted) throw new CancelledError('the debug session stopped the run');
    const thread = this.threadFor(boundary.scope);
    if (thread.mode.kind !== 'stepIn') return;
    return this.halt(thread, { kind: 'turn', boundary, turn: boundary.turn }, { reason: 'step', description: `turn ${boundary.turn} of ${boundary.nodeId}` });
  }

  /** Reports a gate waiting for an answer as a stop of its thread (the engine itself waits for the answer). */
  gateOpened(scope: WalkScope, gateId: string, question: string): DebugThread {
    const thread = this.threadFor(scope);
    const boundary = thread.lastNode;
    if (boundary) {
      thread.markStopped({ kind: 'gate', boundary, gateId }, { reason: 'human gate', description: question });
      this.listener.stopped(thread);
    }
    return thread;
  }

  /** The gate was answered or abandoned: its thread runs again. Returns the thread when it was shown stopped there. */
  gateClosed(gateId: string): DebugThread | undefined {
    const thread = this.allThreads().find((t) => t.place?.kind === 'gate' && t.place.gateId === gateId);
    thread?.resume(thread.mode);
    return thread;
  }

  /** Notes an exception seen between boundaries (a goal gate's jump); reported at the thread's next node. */
  noteException(scope: WalkScope, hit: ExceptionHit): void {
    this.threadFor(scope).pendingException = hit;
  }

  /** After the run ended: show the main thread stopped on the failure until the client resumes. */
  haltAfterRun(hit: ExceptionHit): Promise<Release> {
    const thread = this.main;
    const place: StopPlace = thread.lastNode ? { kind: 'ended', boundary: thread.lastNode } : { kind: 'ended' };
    const parked = thread.park(place, { reason: 'exception', description: hit.description, exception: hit });
    this.listener.stopped(thread);
    return parked;
  }

  /** Resumes one thread with a step mode; unless `singleThread`, the held threads run freely again. */
  resume(thread: DebugThread, mode: StepMode, singleThread = false): void {
    thread.resume(mode);
    if (singleThread) return;
    for (const other of this.allThreads()) {
      if (other === thread) continue;
      if (other.place && other.place.kind !== 'gate') other.resume({ kind: 'run' });
      else if (other.mode.kind === 'pause') other.mode = { kind: 'run' };
    }
  }

  pause(thread: DebugThread): void {
    if (!thread.isStopped) thread.mode = { kind: 'pause' };
  }

  /** Releases every parked hook with an abort: the walk unwinds with a CancelledError. */
  abort(): void {
    this.aborted = true;
    for (const thread of this.allThreads()) thread.resume({ kind: 'run' }, 'abort');
  }

  private nodeStop(thread: DebugThread, boundary: NodeBoundary): StopInfo | undefined {
    const hits = this.settings.breakpoints.nodeHits(boundary.graph.sourcePath, boundary.nodeId, boundary.visit, boundary.context);
    for (const message of hits.logs) this.listener.logpoint(thread, message, { kind: 'node', boundary });
    if (this.entryStop && thread.id === MAIN_THREAD_ID) {
      const reason = this.entryStop;
      this.entryStop = undefined;
      return { reason };
    }
    if (hits.stopIds.length > 0) return { reason: 'breakpoint', hitBreakpointIds: hits.stopIds };
    if (thread.pendingException) {
      const hit = thread.pendingException;
      thread.pendingException = undefined;
      return { reason: 'exception', description: hit.description, exception: hit };
    }
    if (this.settings.exceptionFilters.has('human_gate')) {
      const node = boundary.graph.nodes.get(boundary.nodeId);
      if (node && resolveHandlerType(node) === 'wait.human') {
        const description = `human gate ${boundary.nodeId} reached`;
        return { reason: 'exception', description, exception: { filter: 'human_gate', description } };
      }
    }
    const depth = boundary.scope.frames.length;
    switch (thread.mode.kind) {
      case 'run':
        return undefined;
      case 'stepIn':
        return { reason: 'step' };
      case 'next':
        return depth <= thread.mode.depth ? { reason: 'step' } : undefined;
      case 'stepOut':
        return depth < thread.mode.depth ? { reason: 'step' } : undefined;
      case 'pause':
        return { reason: 'pause' };
    }
  }

  private directive(thread: DebugThread, boundary: EdgeBoundary): EdgeDirective | undefined {
    if (this.aborted) throw new CancelledError('the debug session stopped the run');
    const forced = thread.forcedEdge;
    if (!forced || forced.from !== boundary.from) return undefined;
    thread.forcedEdge = undefined;
    return { forceEdgeIndex: forced.index };
  }

  private async halt(thread: DebugThread, place: StopPlace, stop: StopInfo): Promise<void> {
    const parked = thread.park(place, stop);
    this.listener.stopped(thread);
    // Other walks are held at their next boundary, so a stopped thread is looked at in peace.
    for (const other of this.allThreads()) if (other !== thread && !other.isStopped && other.mode.kind === 'run') other.mode = { kind: 'pause' };
    if ((await parked) === 'abort' || this.aborted) throw new CancelledError('the debug session stopped the run');
  }
}
