import type { Graph, GraphNode } from '../model/graph';
import { resolveHandlerType } from '../model/handler-types';
import type { CodergenBackend, FidelityMode, TranscriptMessage } from '../runtime/backend';
import type { Clock } from '../runtime/clock';
import type { RunContext } from '../runtime/context';
import type { RunEvent, WalkScope } from '../runtime/events';
import type { Interviewer } from '../runtime/interviewer';
import type { Outcome } from '../runtime/outcome';
import type { RunDirectory } from '../runtime/run-directory';
import type { CommandSandbox } from '../runtime/sandbox';
import type { OutcomeRecord } from '../runtime/state';

/** What a nested walk (parallel branch) reports back. */
export interface BranchResult {
  readonly startNodeId: string;
  /** The scope the branch's events carry. */
  readonly scopeId: string;
  readonly outcome: Outcome;
  /** The node where the branch stopped (the fan-in), if it reached one. */
  readonly stoppedAt?: string;
  readonly context: RunContext;
}

/** Everything a handler may use besides the node and the context. Handlers hold no state of their own. */
export interface HandlerServices {
  readonly graph: Graph;
  readonly cwd: string;
  readonly runDirectory: RunDirectory;
  readonly runId: string;
  readonly iteration: number;
  readonly scope: WalkScope;
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly emit: (event: RunEvent) => void;
  readonly backend: CodergenBackend;
  readonly interviewer: Interviewer;
  /** max_parallel of a fan-out that does not set its own (a run option). */
  readonly defaultMaxParallel: number;
  /** Confines each command a handler runs (tool commands, the agent's shell, hooks). */
  readonly sandbox: CommandSandbox;
  /** The run's launch parameters (`$name` in tool commands). */
  readonly params: Readonly<Record<string, string>>;
  /** This iteration's completed nodes and outcomes (fidelity preambles read them). */
  readonly completedNodes: readonly string[];
  readonly nodeOutcomes: Readonly<Record<string, OutcomeRecord>>;
  /** The edge that led here (fidelity and thread resolution). */
  readonly incomingEdge?: { readonly from: string; readonly attributes: ReadonlyMap<string, { value: string }> };
  readonly transcript: (threadKey: string) => readonly TranscriptMessage[];
  readonly recordExchange: (threadKey: string, exchange: readonly TranscriptMessage[]) => void;
  /** Awaits the controller before an agent turn of `nodeId` (see RunController.beforeAgentTurn). */
  readonly beforeAgentTurn: (nodeId: string, turn: number) => Promise<void>;
  /**
   * Runs the walk from `startNodeId` on `context` until `stopAt` or a dead end (parallel branches,
   * a manager's in-graph child); `onEvent` sees the walk's events before the run's bus does.
   */
  readonly runBranch: (startNodeId: string, context: RunContext, stopAt: ReadonlySet<string>, label: string, signal: AbortSignal, onEvent?: (event: RunEvent) => void) => Promise<BranchResult>;
  /** Runs another pipeline file as one node (folder sub-pipelines). */
  readonly runChildPipeline: (dotFile: string, context: RunContext, label: string, options?: ChildPipelineOptions) => Promise<Outcome>;
  /** Starts another pipeline file and returns at once, for a supervisor that watches it run (manager loops). */
  readonly startChildPipeline: (dotFile: string, context: RunContext, label: string, options?: ChildPipelineOptions) => ChildPipelineHandle;
}

export interface ChildPipelineOptions {
  /** The child's working directory (default: the run's). */
  readonly cwd?: string;
  /** Sees every event of the child's walk (and of walks nested in it) before the run's bus does. */
  readonly onEvent?: (event: RunEvent) => void;
  /**
   * The child's launch parameters beyond the run's (its node's `context.*` attributes): set in its
   * context and, like `--param` values, pipeline variables of its tool commands.
   */
  readonly params?: Readonly<Record<string, string>>;
}

/** A child pipeline running beside the node that started it. */
export interface ChildPipelineHandle {
  /** False when the child never started: it could not be read or is invalid (its outcome says why). */
  readonly loaded: boolean;
  readonly scope: WalkScope;
  /** The child's run directory: `<parent stage dir>/subpipeline`, one stage directory per child node. */
  readonly runDirectory: RunDirectory;
  /** Settles when the child's walk ends, never rejects; a cancelled child is a non-explicit FAIL. */
  readonly outcome: Promise<Outcome>;
  cancel(): void;
}

export interface HandlerInput {
  readonly node: GraphNode;
  readonly context: RunContext;
  readonly services: HandlerServices;
  /** 1-indexed attempt within the retry ladder. */
  readonly attempt: number;
  /** Why the previous attempt in this retry ladder did not count (absent on a first attempt). */
  readonly retryReason?: string;
  /** Aborted on cancel or when the node's timeout expires. */
  readonly signal: AbortSignal;
  readonly fidelity: FidelityMode;
}

/** Canonical §4.1. Errors may be thrown; the engine turns them into FAIL (or retries transient ones). */
export interface Handler {
  execute(input: HandlerInput): Promise<Outcome>;
}

/** Canonical §4.2: explicit type, then shape, then the default (codergen). */
export class HandlerRegistry {
  private readonly handlers = new Map<string, Handler>();

  constructor(private readonly fallback: Handler) {}

  register(type: string, handler: Handler): this {
    this.handlers.set(type, handler);
    return this;
  }

  types(): string[] {
    return [...this.handlers.keys()];
  }

  resolve(node: GraphNode): Handler {
    return this.handlers.get(resolveHandlerType(node)) ?? this.fallback;
  }
}
