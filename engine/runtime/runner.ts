import crypto from 'node:crypto';
import path from 'node:path';
import type { Graph } from '../model/graph';
import { isStartNode } from '../model/handler-types';
import type { HandlerRegistry } from '../handlers/handler';
import { createHandlerRegistry } from '../handlers';
import { preparePipeline } from '../prepare';
import type { CodergenBackend } from './backend';
import type { Clock } from './clock';
import { systemClock } from './clock';
import { RunContext } from './context';
import type { RunController } from './controller';
import { EventBus, MAIN_SCOPE } from './events';
import type { Interviewer } from './interviewer';
import type { FailureKind } from './outcome';
import { DEFAULT_MAX_PARALLEL, isMaxParallel } from './join-policy';
import type { RunnerIdentity } from './run-directory';
import { RunDirectory, readTrace } from './run-directory';
import { RunLockLostError } from './run-lock';
import { diskFullReason, isDiskFull } from './disk-full';
import { StateDeltas } from './state-delta';
import { replayLines } from './journal';
import { recordingProcessGroups } from './process-records';
import type { SandboxRequest } from '../model/sandbox-setting';
import { autoSandbox } from '../model/sandbox-setting';
import { RunSandbox } from './sandbox';
import type { RunState } from './state';
import { CHECKPOINT_FORMAT } from './state';
import { engineCommit, engineVersion } from './version';
import { WorkspaceSnapshotter } from './workspace-snapshotter';
import type { KeptWorkspaceStores } from './kept-workspace-stores';
import type { SnapshotBudget } from './workspace-budget';
import { snapshotBudgetOf } from './workspace-budget';
import type { WalkInput } from './walk-step';
import type { WalkState } from './walk-state';
import { freshWalkState, positionOf, walkStateFrom } from './walk-state';
import { CancelledError, Walker } from './walker';
import { graphContextEntries } from './graph-context';
import { ArtifactStore } from './artifact-store';
import { FileScope } from '../io/file-scope';
import { READ_LIMITS } from '../io/read-file-checked';
import type { RunEnd } from './run-status';

export interface RunOptions {
  /** The prepared (transformed and validated) graph. */
  readonly graph: Graph;
  /** The DOT source the graph came from: hashed into the checkpoint and kept in the run directory. */
  readonly source: string;
  readonly cwd: string;
  readonly logsRoot: string;
  /** The run's id when its launcher named it (a server's run id, a Restate workflow's key); else one is made up. */
  readonly runId?: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly backend: CodergenBackend;
  readonly interviewer: Interviewer;
  readonly controller?: RunController;
  readonly handlers?: HandlerRegistry;
  readonly clock?: Clock;
  readonly signal?: AbortSignal;
  readonly events?: EventBus;
  /** Continue from this checkpoint instead of starting fresh (opt-in resume). */
  readonly resume?: RunState;
  /** max_parallel of fan-outs that do not set their own (default 4, canonical §4.8); an integer ≥ 1. */
  readonly defaultMaxParallel?: number;
  /** Who started the run, stamped into the manifest. */
  readonly runner?: RunnerIdentity;
  /** Budget of the per-visit workspace snapshots (default: the graph's), or false to take none. */
  readonly workspaceSnapshots?: SnapshotBudget | false;
  /** Where a walk that pauses keeps its workspace store for the run's next walk in this process (a Restate worker's next step). */
  readonly workspaceStores?: KeptWorkspaceStores;
  /** The files the run may load: sub-pipelines, manager children, schemas (default: any). A server confines its runs to its roots. */
  readonly files?: FileScope;
  /** How commands are confined (default `auto`). */
  readonly sandbox?: SandboxRequest;
}

export interface RunResult {
  readonly status: RunEnd;
  readonly failureReason?: string;
  readonly failureKind?: FailureKind;
  readonly logsRoot: string;
  readonly runId: string;
  readonly state: RunState;
}

export function hashSource(source: string): string {
  return crypto.createHash('sha256').update(source).digest('hex');
}

/** A run stopped at a node boundary by `runPipelineStep`: its checkpoint stays `running` there, and a resume continues it. */
export interface PausedRun {
  readonly status: 'paused';
  readonly pausedAt: string;
  readonly logsRoot: string;
  readonly runId: string;
  readonly state: RunState;
}

/**
 * INITIALIZE → EXECUTE → FINALIZE for a prepared graph. Writes the run directory, checkpoints
 * after every node, and always balances run:start with run:end (also on cancel and errors).
 */
export async function runPipeline(options: RunOptions): Promise<RunResult> {
  const result = await walkPipeline(options, undefined);
  if (result.status === 'paused') throw new Error(`the run paused at ${result.pausedAt} with nothing asking it to pause`);
  return result;
}

/**
 * `runPipeline` that stops at the boundary before a main-walk node `pauseBefore` answers true for,
 * without a run:end (the run is not over). The Restate worker runs one node visit per durable step this way.
 */
export function runPipelineStep(options: RunOptions, pauseBefore: (nodeId: string) => boolean): Promise<RunResult | PausedRun> {
  return walkPipeline(options, pauseBefore);
}

async function walkPipeline(options: RunOptions, pauseBefore: ((nodeId: string) => boolean) | undefined): Promise<RunResult | PausedRun> {
  if (options.defaultMaxParallel !== undefined && !isMaxParallel(options.defaultMaxParallel)) {
    throw new RangeError(`defaultMaxParallel must be an integer of at least 1 (got ${options.defaultMaxParallel})`);
  }
  const events = options.events ?? new EventBus();
  const clock = options.clock ?? systemClock;
  const signal = options.signal ?? new AbortController().signal;
  const directory = new RunDirectory(path.resolve(options.logsRoot));
  const { graph } = options;
  const resumed = options.resume;
  const runId = resumed?.runId ?? options.runId ?? `${graph.name || 'pipeline'}-${new Date(clock.now()).toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(3).toString('hex')}`;
  const startedAt = resumed?.startedAt ?? new Date(clock.now()).toISOString();
  const monoStart = clock.monotonic();
  const elapsedBefore = resumed?.elapsedBeforeMs ?? 0;
  const params = { ...(resumed?.params ?? options.params ?? {}) };

  events.emit({ type: 'phase', phase: 'initialize', state: 'start' });
  directory.create();
  const artifacts = new ArtifactStore(directory.root);
  const state: WalkState = resumed ? walkStateFrom(resumed, artifacts) : initialWalkState(graph, params, runId, artifacts);
  if (!resumed) {
    directory.writePipelineSource(options.source);
    directory.writeManifest({
      graph_name: graph.name,
      goal: graph.attributes.get('goal')?.value ?? '',
      start_time: startedAt,
      node_count: graph.nodes.size,
      edge_count: graph.edges.length,
      engine_version: engineVersion,
      engine_commit: engineCommit,
      run_id: runId,
      ...(graph.sourcePath ? { source_path: graph.sourcePath } : {}),
      cwd: options.cwd,
      backend: options.backend.name,
      ...(options.runner ? { runner_version: options.runner.version, runner_commit: options.runner.commit, provider: options.runner.provider } : {}),
    });
  }
  const graphHash = hashSource(options.source);
  const carry = options.workspaceStores ? { kept: options.workspaceStores, resumedAt: resumed?.workspaceSnapshot } : undefined;
  const snapshotter = new WorkspaceSnapshotter(directory.root, options.cwd, options.workspaceSnapshots ?? snapshotBudgetOf(graph.attributes), (message) => events.emit({ type: 'warning', message }), carry);
  // The live state, viewed as a RunState without copying it: only a compaction or a consumer of the
  // checkpoint event serialises it whole.
  const view = (status: RunState['status'], failureReason?: string): RunState => ({
    format: CHECKPOINT_FORMAT,
    runId,
    graphHash,
    graphName: graph.name,
    ...(graph.sourcePath ? { sourcePath: graph.sourcePath } : {}),
    cwd: options.cwd,
    params,
    status,
    ...(status === 'running' ? { pid: process.pid } : {}),
    ...(failureReason ? { failureReason } : {}),
    ...positionOf(state),
    context: state.context.snapshot(),
    threads: state.threads,
    ...snapshotter.checkpointField(),
    startedAt,
    elapsedBeforeMs: elapsedBefore + (clock.monotonic() - monoStart),
    updatedAt: new Date(clock.now()).toISOString(),
  });
  const deltas = new StateDeltas(state);
  /** The inputs the walk took since the last boundary: the journal records them with its delta. */
  let inputs: WalkInput[] = [];
  // What the checkpoint events' states are rebuilt from: the last snapshot and the journal lines since.
  let generation: { readonly snapshot: string; readonly lines: string[] } = { snapshot: '', lines: [] };
  const commit = (status: RunState['status'], failureReason: string | undefined, compact: boolean): void => {
    const header = { status, ...(failureReason ? { failureReason } : {}), ...snapshotter.checkpointField(), elapsedBeforeMs: elapsedBefore + (clock.monotonic() - monoStart), updatedAt: new Date(clock.now()).toISOString() };
    const committed = directory.commit(deltas.take(state, header), () => view(status, failureReason), compact, inputs);
    inputs = [];
    if (committed.snapshot !== undefined) generation = { snapshot: committed.snapshot, lines: [] };
    else generation.lines.push(committed.line);
  };
  /** The state of the last node boundary the journal holds. */
  const committedState = (): RunState => replayLines(generation.snapshot, generation.lines);
  const checkpoint = (compact = false) => {
    commit('running', undefined, compact);
    const { snapshot, lines } = generation;
    const count = lines.length;
    let frozen: RunState | undefined;
    events.emit({
      type: 'checkpoint',
      nodeId: state.lastCompletedNodeId ?? state.nextNodeId,
      // The committed state, rebuilt only for the consumers that ask (the debugger's time travel).
      get state(): RunState {
        frozen ??= replayLines(snapshot, lines.slice(0, count));
        return frozen;
      },
    });
  };
  directory.openJournal(resumed !== undefined);
  // The first boundary is a snapshot: a fresh run's first checkpoint, a resumed run's replayed state.
  checkpoint(true);
  events.emit({ type: 'phase', phase: 'initialize', state: 'end' });

  events.emit({ type: 'run:start', runId, logsRoot: directory.root, graphName: graph.name, resumed: resumed !== undefined, history: resumed ? readTrace(directory.root) : [] });
  let status: RunResult['status'] | 'paused' = 'fail';
  let pausedAt = '';
  let failureReason: string | undefined;
  let failureKind: FailureKind | undefined;
  /** Another engine took the run directory over: this one ends without a result of its own. */
  let lockLost: RunLockLostError | undefined;
  /** The disk refused a write: nothing more is written, the last committed boundary is where a resume goes on. */
  let diskFull = false;
  try {
    events.emit({ type: 'phase', phase: 'execute', state: 'start' });
    const walker = new Walker(
      {
        runId,
        cwd: options.cwd,
        clock,
        signal,
        emit: (event) => events.emit(event),
        backend: options.backend,
        interviewer: options.interviewer,
        handlers: options.handlers ?? createHandlerRegistry(),
        controller: options.controller ?? {},
        defaultMaxParallel: options.defaultMaxParallel ?? DEFAULT_MAX_PARALLEL,
        sandbox: new RunSandbox(options.sandbox ?? autoSandbox, directory.root, (message) => events.emit({ type: 'warning', message })),
        params,
        loadChildPipeline: (dotFile, parent) => loadChildPipeline(dotFile, parent, options.files ?? FileScope.anywhere),
      },
      {
        scope: MAIN_SCOPE,
        graph,
        runDirectory: directory,
        state,
        exitSemantics: true,
        ...(pauseBefore ? { pauseBefore } : {}),
        onBoundary: () => checkpoint(),
        onInput: (input) => inputs.push(journaled(input, (key, value) => artifacts.externalize(key, value, currentNode(state)))),
        snapshotVisit: () => snapshotter.visit(),
        elapsedMs: () => elapsedBefore + (clock.monotonic() - monoStart),
      },
    );
    const result = await recordingProcessGroups(directory.processGroups, () => walker.walk());
    if (result.kind === 'finished') {
      status = result.status;
      failureReason = result.failureReason;
      failureKind = result.failureKind;
    } else if (pauseBefore) {
      status = 'paused';
      pausedAt = result.stoppedAt;
    } else {
      failureReason = `the walk stopped unexpectedly at ${result.stoppedAt}`;
    }
    events.emit({ type: 'phase', phase: 'execute', state: 'end' });
  } catch (error) {
    if (error instanceof RunLockLostError) {
      lockLost = error;
    } else if (error instanceof CancelledError || signal.aborted) {
      status = 'cancelled';
      failureReason = 'cancelled';
    } else if (isDiskFull(error)) {
      diskFull = true;
      failureReason = diskFullReason(error);
    } else {
      failureReason = `engine error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    }
  } finally {
    events.emit({ type: 'phase', phase: 'finalize', state: 'start' });
    /** The last boundary reached the disk: the run directory is as this walk leaves it. */
    let committed = false;
    try {
      // A cancelled run goes back to its last node boundary (the live state is mid-node), so
      // `attractor resume` redoes the node it was in.
      // After a full disk the run directory stays as the last commit left it: `running` at a node
      // boundary, which `attractor resume` continues.
      if (!diskFull) {
        if (status === 'cancelled') directory.settle(cancelledAt(committedState()));
        else commit(checkpointStatus(status), failureReason, true);
        committed = true;
        directory.recordUsageTotal();
      }
    } catch (error) {
      // Another engine took the run over while its last node ran (a node that failed, say, because the
      // group guard killed its command): its result is not this engine's to give.
      if (error instanceof RunLockLostError) lockLost = error;
      // Otherwise the run's own result matters more than a last checkpoint the disk refused.
    }
    directory.closeJournal();
    snapshotter.close(status === 'paused' && committed);
    events.emit({ type: 'phase', phase: 'finalize', state: 'end' });
    // A paused run is not over: the step that resumes it emits its end.
    if (status !== 'paused' && !lockLost) events.emit({ type: 'run:end', status, ...(failureReason ? { failureReason } : {}), ...(failureKind ? { failureKind } : {}), durationMs: clock.monotonic() - monoStart });
  }
  if (lockLost) throw lockLost;
  const finalState = JSON.parse(JSON.stringify(status === 'cancelled' ? cancelledAt(committedState()) : view(checkpointStatus(status), failureReason))) as RunState;
  if (status === 'paused') return { status, pausedAt, logsRoot: directory.root, runId, state: finalState };
  return { status, ...(failureReason ? { failureReason } : {}), ...(failureKind ? { failureKind } : {}), logsRoot: directory.root, runId, state: finalState };
}

/**
 * An input as the journal keeps it: an LLM node's full response is in its stage directory, not
 * needed to replay the walk; a large context value (an outcome's update, a controller's edit) is
 * the artifact reference the checkpoint holds for it (`externalize`), not the value whole.
 */
function journaled(input: WalkInput, externalize: (key: string, value: unknown) => unknown): WalkInput {
  const stored = (values: Readonly<Record<string, unknown>>): Record<string, unknown> => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, externalize(key, value)]));
  const edits = input.edits && { ...input.edits, set: stored(input.edits.set) };
  const withEdits = edits ? { ...input, edits } : input;
  if (withEdits.type !== 'attempted' || withEdits.result.kind !== 'outcome') return withEdits;
  const { responseText: _response, ...outcome } = withEdits.result.outcome;
  return { ...withEdits, result: { kind: 'outcome', outcome: outcome.contextUpdates ? { ...outcome, contextUpdates: stored(outcome.contextUpdates) } : outcome } };
}

/** The node whose artifacts a value becomes (as RunContext names them). */
function currentNode(state: WalkState): string | undefined {
  const node = state.context.get('current_node');
  return typeof node === 'string' ? node : undefined;
}

/** A paused run's checkpoint stays `running` at the boundary it paused at: resumable, not finished. */
function checkpointStatus(status: RunResult['status'] | 'paused'): RunState['status'] {
  return status === 'paused' ? 'running' : status;
}

function cancelledAt(boundary: RunState): RunState {
  const { pid: _pid, ...state } = boundary;
  return { ...state, status: 'cancelled' };
}

function initialWalkState(graph: Graph, params: Readonly<Record<string, string>>, runId: string, artifacts: ArtifactStore): WalkState {
  const start = [...graph.nodes.values()].find(isStartNode);
  if (!start) throw new Error('the graph has no start node (validation should have refused it)');
  const context = new RunContext({
    ...params,
    ...graphContextEntries(graph),
    run_id: runId,
    iteration: '0',
    loop_count: '0',
  }, artifacts);
  return freshWalkState(start.id, context, 0);
}

/** Ledger dot_file resolution: absolute as is, else beside the .dot that references it, else the cwd. */
export function resolveDotFile(dotFile: string, parent: Graph): string {
  if (path.isAbsolute(dotFile)) return dotFile;
  return path.resolve(parent.sourcePath ? path.dirname(parent.sourcePath) : process.cwd(), dotFile);
}

/** The one place a run loads a child pipeline (a folder node's, a manager's): read within the run's scope, its own files too. */
function loadChildPipeline(dotFile: string, parent: Graph, files: FileScope): { graph: Graph } | { error: string } {
  const file = resolveDotFile(dotFile, parent);
  const read = files.read(file, READ_LIMITS.pipeline);
  if ('problem' in read) return { error: `cannot read sub-pipeline: ${read.problem}` };
  const prepared = preparePipeline(read.text, { sourcePath: file, files });
  const errors = prepared.diagnostics.filter((d) => d.severity === 'error');
  if (!prepared.graph || errors.length > 0) {
    return { error: `sub-pipeline ${file} is invalid: ${errors.map((d) => `${d.rule}: ${d.message}`).join('; ')}` };
  }
  return { graph: prepared.graph };
}
