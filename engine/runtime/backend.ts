import type { ArtifactInfo } from './artifact-store';
import type { GraphNode } from '../model/graph';
import type { Message } from '../llm/types';
import type { StageStatus } from '../model/stage-status';
import type { Confinement } from './bubblewrap';

/** The report_outcome tool's arguments, as the model sent them (validated by the verdict ladder). */
export interface ReportedOutcome {
  readonly status: StageStatus | string;
  readonly preferred_label?: string;
  readonly suggested_next_ids?: readonly unknown[];
  readonly context_updates?: Readonly<Record<string, unknown>>;
  readonly notes?: string;
  readonly failure_reason?: string | null;
}

export type FidelityMode = 'full' | 'truncate' | 'compact' | 'summary:low' | 'summary:medium' | 'summary:high';

/**
 * One message of a `full`-fidelity thread, in the provider-neutral shape: assistant text and tool
 * calls, tool results, user text. Each adapter replays it in its own API's shape.
 */
export type TranscriptMessage = Message;

/** One event of a worker session, persisted to `<node>/sessions/<id>/events.jsonl`. */
export interface AgentEvent {
  readonly event: 'session:start' | 'session:end' | 'prompt:submit' | 'prompt:complete' | 'tool:pre' | 'tool:post' | 'usage' | 'turn' | 'text:delta';
  readonly data: Readonly<Record<string, unknown>>;
}

export interface ModelSelection {
  readonly provider?: string;
  readonly model?: string;
  readonly reasoningEffort?: string;
}

export interface AgentConfinement {
  readonly shell?: Confinement;
  readonly hooks?: Confinement;
}

export interface CodergenRequest {
  readonly node: GraphNode;
  /** The fully expanded prompt, with the fidelity preamble and feedback already applied. */
  readonly prompt: string;
  /** The run's working directory: the only place agent tools may read and write. */
  readonly workDir: string;
  /** `<logs_root>/<node_id>`, existing. */
  readonly stageDir: string;
  readonly model: ModelSelection;
  readonly fidelity: FidelityMode;
  /** Prior exchanges of this node's thread under `full` fidelity (oldest first). */
  readonly history: readonly TranscriptMessage[];
  readonly responseSchema?: Readonly<Record<string, unknown>>;
  readonly goalGate: boolean;
  /**
   * Why the previous attempt of this node did not count (a goal gate that answered in prose): the
   * model is told, and must end with an explicit verdict.
   */
  readonly verdictRequired?: string;
  readonly toolHooks: { readonly pre?: string; readonly post?: string };
  /** How the agent's commands run: its `shell` tool and the tool hooks; an absent one runs unconfined. */
  readonly confinement: AgentConfinement;
  readonly signal: AbortSignal;
  readonly emit: (event: AgentEvent) => void;
  /** Awaited before each model call (1-indexed turn), so a debugger can pause inside the node. */
  readonly beforeTurn?: (turn: number) => Promise<void>;
  /** The run's artifact store (canonical §5.5), stored into as this node. */
  readonly artifacts?: ArtifactAccess;
}

/** What an agent may do with the run's artifacts. */
export interface ArtifactAccess {
  store(id: string, name: string, content: string): ArtifactInfo;
  retrieve(id: string): unknown;
  list(): readonly ArtifactInfo[];
}

/** What a node's model calls consumed. A count the server never reported is 'unknown', never 0. */
export interface Usage {
  readonly inputTokens: number | 'unknown';
  readonly outputTokens: number | 'unknown';
  /** USD, or 'unknown' when the model has no price or a call reported no usage. */
  readonly costUsd: number | 'unknown';
  /** Provider requests made, retried ones included. */
  readonly requests: number;
}

export interface CodergenResult {
  /** The agent's final response text (may be empty). */
  readonly responseText: string;
  /** The last valid report_outcome call, when the agent made one: authoritative. */
  readonly reportedOutcome?: ReportedOutcome;
  /** Parsed structured output, when the node had a response_schema. */
  readonly structuredOutput?: unknown;
  readonly usage?: Usage;
  readonly sessionId?: string;
  /** The agent hit a turn or tool-round limit before it finished: the node fails with this reason. */
  readonly limitReached?: string;
  /** This node's whole exchange (its prompt onward), for the `full`-fidelity thread. */
  readonly exchange?: readonly TranscriptMessage[];
}

/** A provider failure. `transient` errors (429, 5xx, timeouts, resets) may be retried. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly provider: string,
    readonly status: number | undefined,
    readonly transient: boolean,
    readonly retryAfterMs?: number,
    /** What the failed node attempt consumed before the error (summed into the node's usage). */
    readonly usage?: Usage,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface PreflightProblem {
  readonly nodeId: string;
  readonly provider: string;
  readonly message: string;
}

/** What an LLM node calls (canonical §4.5 CodergenBackend), made async and cancellable. */
export interface CodergenBackend {
  readonly name: string;
  /** Problems that must stop a launch before any node runs (missing credentials, unknown provider). */
  preflight(nodes: readonly { node: GraphNode; model: ModelSelection }[]): PreflightProblem[];
  run(request: CodergenRequest): Promise<CodergenResult>;
}
