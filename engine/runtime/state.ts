import type { TranscriptMessage } from './backend';
import type { ContextValues } from './context';
import type { EdgeIdentity } from './events';
import type { StageStatus } from '../model/stage-status';
import type { RunStatus } from './run-status';

export const CHECKPOINT_FORMAT = 'attractor-checkpoint/1';

/** What goal gates and feedback need to remember of a node's latest outcome in this iteration. */
export interface OutcomeRecord {
  readonly status: StageStatus;
  readonly isExplicit: boolean;
  readonly preferredLabel?: string;
  readonly notes?: string;
  readonly failureReason?: string;
  readonly toolOutput?: string;
  readonly toolLastLine?: string;
}

/**
 * The whole state of a walk between two nodes, as plain JSON: the checkpoint *is* this object,
 * so resume, step-back and restart-frame are all "load a snapshot and continue".
 */
export interface RunState {
  readonly format: typeof CHECKPOINT_FORMAT;
  readonly runId: string;
  /** sha256 of the pipeline source, so a checkpoint is never resumed against another graph. */
  readonly graphHash: string;
  readonly graphName: string;
  readonly sourcePath?: string;
  readonly cwd: string;
  readonly params: Readonly<Record<string, string>>;
  /** `cancelled` and a `running` whose engine process is gone (killed) are both resumable. */
  readonly status: RunStatus;
  /** The engine process walking the run, while `running`: a dead one means the run was interrupted. */
  readonly pid?: number;
  readonly failureReason?: string;
  /** The node the walk runs next (on resume: the interrupted one). */
  readonly nextNodeId: string;
  /** The edge that led to nextNodeId (fidelity and thread resolution read it). */
  readonly incomingEdge?: EdgeIdentity;
  readonly lastCompletedNodeId?: string;
  /** Nodes completed in this iteration, in order. */
  readonly completedNodes: readonly string[];
  readonly nodeOutcomes: Readonly<Record<string, OutcomeRecord>>;
  /** Attempts already consumed by the node that is running (resume continues the count). */
  readonly retryCounts: Readonly<Record<string, number>>;
  readonly visits: Readonly<Record<string, number>>;
  readonly context: ContextValues;
  readonly iteration: number;
  readonly step: number;
  /** Set once a FAIL flowed into a runs_on=always|failure node: the run ends failed whatever follows. */
  readonly pendingFailure?: string;
  /** `full`-fidelity transcripts by thread key. */
  readonly threads: Readonly<Record<string, readonly TranscriptMessage[]>>;
  /** The workspace at this boundary (a tree id in the run's workspace.git); absent when snapshots are off. */
  readonly workspaceSnapshot?: string;
  readonly startedAt: string;
  /** Wall time spent before this process took over (resume), for max_pipeline_duration. */
  readonly elapsedBeforeMs: number;
  readonly updatedAt: string;
  /** In checkpoint.json: the last journal record this snapshot holds (the journal's tail is replayed onto it). */
  readonly journalSeq?: number;
  /** In checkpoint.json: the length of trace.jsonl when the snapshot was taken (fsynced before it). */
  readonly traceBytes?: number;
}
