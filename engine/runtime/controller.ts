import type { Graph, GraphEdge } from '../model/graph';
import type { RunContext } from './context';
import type { WalkScope } from './events';
import type { Outcome } from './outcome';
import type { VisitFiles } from './workspace-snapshot';

/** A node boundary as a controller sees it. The context is live: edits apply to the walk. */
export interface NodeBoundary {
  readonly scope: WalkScope;
  readonly graph: Graph;
  readonly nodeId: string;
  readonly iteration: number;
  readonly step: number;
  /** How many times this node has started in the run, this visit included. */
  readonly visit: number;
  readonly context: RunContext;
  /** Stops this node's current attempt: it fails with `cancelled: <reason>`, the run goes on routing. */
  readonly cancelNode: (reason: string) => void;
}

export interface EdgeBoundary {
  readonly scope: WalkScope;
  readonly graph: Graph;
  readonly from: string;
  readonly outcome: Outcome;
  readonly selected: GraphEdge;
  readonly candidates: readonly GraphEdge[];
  readonly iteration: number;
  readonly context: RunContext;
}

/** A controller may force the walk down another outgoing edge (the debugger's step-in targets). */
export interface EdgeDirective {
  readonly forceEdgeIndex: number;
}

/**
 * The seams the debugger (and the CLI's progress display) use. Every hook is awaited, so a
 * controller pauses the walk simply by not resolving yet. The engine knows nothing of DAP.
 */
export interface RunController {
  beforeNode?(boundary: NodeBoundary): Promise<void> | void;
  /** `files`: the workspace snapshots around the visit (main walk, snapshots on). */
  afterNode?(boundary: NodeBoundary & { readonly outcome: Outcome; readonly files?: VisitFiles }): Promise<void> | void;
  beforeEdge?(boundary: EdgeBoundary): Promise<EdgeDirective | undefined | void> | EdgeDirective | undefined | void;
  /** Before each model call of an LLM node's agent loop (the debugger's step-in into a node). */
  beforeAgentTurn?(boundary: NodeBoundary & { readonly turn: number }): Promise<void> | void;
}
