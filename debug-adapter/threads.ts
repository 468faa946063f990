import type { EdgeBoundary, NodeBoundary } from '../engine/runtime/controller';
import type { GraphEdge } from '../engine/model/graph';
import type { Outcome } from '../engine/runtime/outcome';
import type { VisitFiles } from '../engine/runtime/workspace-snapshot';
import type { ExceptionHit } from './exceptions';

export const MAIN_THREAD_ID = 1;

/** A stack frame's id is its thread's id times this, plus its depth. */
export const FRAME_STRIDE = 1000;

export interface LastVisit {
  readonly nodeId: string;
  readonly iteration: number;
  readonly outcome: Outcome;
  readonly files?: VisitFiles;
}

/** Where a paused thread is. Every place but `ended` has a node boundary to inspect. */
export type StopPlace =
  | { readonly kind: 'node'; readonly boundary: NodeBoundary }
  | { readonly kind: 'node-done'; readonly boundary: NodeBoundary; readonly outcome: Outcome }
  | { readonly kind: 'edge'; readonly boundary: NodeBoundary; readonly edgeBoundary: EdgeBoundary; readonly edge: GraphEdge }
  | { readonly kind: 'gate'; readonly boundary: NodeBoundary; readonly gateId: string }
  | { readonly kind: 'turn'; readonly boundary: NodeBoundary; readonly turn: number }
  | { readonly kind: 'ended'; readonly boundary?: NodeBoundary };

export type StopReason = 'entry' | 'breakpoint' | 'step' | 'pause' | 'exception' | 'restart' | 'human gate';

export interface StopInfo {
  readonly reason: StopReason;
  readonly description?: string;
  readonly hitBreakpointIds?: readonly number[];
  readonly exception?: ExceptionHit;
}

/** What a thread does once resumed: run freely, or stop again at the next boundary that matches. */
export type StepMode =
  | { readonly kind: 'run' }
  | { readonly kind: 'next'; readonly depth: number }
  | { readonly kind: 'stepIn' }
  | { readonly kind: 'stepOut'; readonly depth: number }
  | { readonly kind: 'pause' };

export type Release = 'resume' | 'abort';

/** One walk the client sees as a thread: the main walk, or one parallel branch. */
export class DebugThread {
  mode: StepMode = { kind: 'run' };
  place: StopPlace | undefined;
  stop: StopInfo | undefined;
  /** The last node boundary this thread reached (the current node while it runs). */
  lastNode: NodeBoundary | undefined;
  /** The last boundary of the thread's own graph (outside sub-pipelines): what time travel restores around. */
  lastTopNode: NodeBoundary | undefined;
  /** The last node that finished on this thread; `files` when its visit was snapshotted. */
  lastOutcome: LastVisit | undefined;
  /** A step-in target: the edge to force out of `from` at its next edge boundary. */
  forcedEdge: { readonly from: string; readonly index: number } | undefined;
  /** An exception noticed between boundaries, reported at the next node boundary. */
  pendingException: ExceptionHit | undefined;
  private release: ((release: Release) => void) | undefined;

  constructor(
    readonly id: number,
    readonly scopeId: string,
    readonly name: string,
  ) {}

  get isStopped(): boolean {
    return this.place !== undefined;
  }

  /** The nesting depth (enclosing sub-pipelines) of where the thread is. */
  get depth(): number {
    return this.lastNode?.scope.frames.length ?? 0;
  }

  /** Parks the thread until `resume` or `abort`; resolves to how it was released. */
  park(place: StopPlace, stop: StopInfo): Promise<Release> {
    this.place = place;
    this.stop = stop;
    this.mode = { kind: 'run' };
    return new Promise<Release>((resolve) => {
      this.release = resolve;
    });
  }

  /** Marks the thread stopped where nothing is waiting on it (a human gate: the engine waits for the answer). */
  markStopped(place: StopPlace, stop: StopInfo): void {
    this.place = place;
    this.stop = stop;
  }

  resume(mode: StepMode, release: Release = 'resume'): void {
    this.mode = mode;
    this.place = undefined;
    this.stop = undefined;
    const waiting = this.release;
    this.release = undefined;
    waiting?.(release);
  }
}

/** The thread a walk scope belongs to: a sub-pipeline runs on its caller's thread, a branch on its own. */
export function threadKeyOf(scopeId: string): string {
  const segments = scopeId.split('>');
  let last = 0;
  segments.forEach((segment, i) => {
    if (segment.startsWith('branch:')) last = i;
  });
  return segments.slice(0, last + 1).join('>');
}
