import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gateQuestion } from '../engine/handlers/human';
import { FileScope } from '../engine/io/file-scope';
import { preparePipeline } from '../engine/prepare';
import type { CodergenBackend } from '../engine/runtime/backend';
import { RunContext } from '../engine/runtime/context';
import { EventBus, MAIN_SCOPE } from '../engine/runtime/events';
import type { HumanQuestion } from '../engine/runtime/events';
import { CallbackInterviewer } from '../engine/runtime/interviewer';
import { admitPipeline, pausingWalk, resumeRun, resumeRunWith, runAdmittedWith } from '../engine/runtime/launch';
import { CheckpointError, loadCheckpoint } from '../engine/runtime/run-directory';
import type { RunnerIdentity } from '../engine/runtime/run-directory';
import type { PausedRun, RunResult } from '../engine/runtime/runner';
import { RunLock } from '../engine/runtime/run-lock';
import { hasCheckpoint } from '../engine/runtime/run-layout';
import type { KeptWorkspaceStores } from '../engine/runtime/kept-workspace-stores';
import type { RunState } from '../engine/runtime/state';
import type { SandboxRequest } from '../engine/model/sandbox-setting';
import type { GateAnswers } from './one-visit';
import { OneVisit } from './one-visit';
import { StepEventsWriter } from '../host/restate/run-events-file';
import type { DurableRunResult, RunRequest } from '../host/restate/run-request';

/** What a worker runs every step with: the same for every run it serves. */
export interface StepEngine {
  readonly backend: CodergenBackend;
  readonly runner: RunnerIdentity;
  readonly defaultMaxParallel?: number;
  readonly sandbox?: SandboxRequest;
  /** Where a step keeps the run's workspace store for the run's next step on this worker. */
  readonly workspaceStores?: KeptWorkspaceStores;
}

/** How one durable step left the run: the workflow journals it, so it is plain JSON. */
export type StepOutcome =
  | { readonly kind: 'advanced'; readonly at: string }
  | { readonly kind: 'gate'; readonly question: HumanQuestion; readonly key: string }
  | DurableRunResult
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * One node visit of the run `runId` (its workflow's key, which the engine takes as its own run id), from its run directory on the shared file system: starts the run when its
 * directory holds none yet, else resumes it from its checkpoint, and pauses at the next boundary. A
 * human gate without an answer in `answers` ends the step with its question (id `gateId`): a main-walk
 * gate before it runs; a gate inside a fan-out branch or a sub-pipeline as it asks, cancelling the walk
 * back to its last boundary, so that the next step runs the node in flight again with the answer.
 * `cancel` (Restate's cancel of the run) stops the walk as a local cancel does: the node's process
 * groups are killed and the checkpoint settles `cancelled`.
 * A step that dies half-way is simply taken again: the engine's resume redoes the node in flight, and
 * a node already checkpointed is not run again.
 */
export async function advanceRun(runId: string, request: RunRequest, engine: StepEngine, gateId: string, answers: GateAnswers, cancel: AbortSignal): Promise<StepOutcome> {
  const contract = workingDirectoryProblem(request);
  if (contract) return { kind: 'refused', reason: contract };
  // Another engine still holds the run (an earlier attempt of this step, alive, or one on another host
  // whose lease has not lapsed yet): failing the step makes Restate retry it later, not end the run.
  const holder = RunLock.liveHolder(request.logsRoot);
  if (holder) throw new Error(holder);
  const scope = loadScope(request);
  if (typeof scope === 'string') return { kind: 'refused', reason: scope };
  const graph = preparePipeline(request.source, { ...(request.sourcePath ? { sourcePath: request.sourcePath } : {}), params: request.params, ...scope }).graph;
  if (!graph) return { kind: 'refused', reason: 'the pipeline does not parse' };
  const checkpoint = readCheckpoint(request.logsRoot);
  if (checkpoint.kind === 'unreadable') return { kind: 'refused', reason: checkpoint.reason };
  if (checkpoint.kind === 'read' && (checkpoint.status === 'success' || checkpoint.status === 'fail')) {
    // The step that finished the run died before Restate journaled its outcome.
    return { kind: 'finished', status: checkpoint.status, ...(checkpoint.failureReason ? { failureReason: checkpoint.failureReason } : {}) };
  }
  const writer = new StepEventsWriter(request.logsRoot, checkpoint.kind === 'read');
  const events = new EventBus();
  events.on(writer.record);
  const step = new OneVisit(graph, answers, events, () => writer.close());
  const options = { cwd: request.cwd, backend: engine.backend, interviewer: step.interviewer, events, signal: AbortSignal.any([step.signal, cancel]), runner: engine.runner, ...scope, ...(engine.defaultMaxParallel !== undefined ? { defaultMaxParallel: engine.defaultMaxParallel } : {}), ...(engine.sandbox ? { sandbox: engine.sandbox } : {}), ...(engine.workspaceStores ? { workspaceStores: engine.workspaceStores } : {}) };
  const walk = pausingWalk((nodeId) => step.pauseBefore(nodeId));
  let result: RunResult | PausedRun;
  if (checkpoint.kind === 'none') {
    const admission = admitPipeline(request.source, { ...options, logsRoot: request.logsRoot, params: request.params, ...(request.sourcePath ? { sourcePath: request.sourcePath } : {}) });
    if (admission.kind === 'refused') return { kind: 'refused', reason: admission.reason };
    result = await runAdmittedWith({ ...options, graph: admission.graph, source: request.source, cwd: request.cwd, logsRoot: request.logsRoot, params: request.params, runId }, walk);
  } else {
    const launched = await resumeRunWith(request.logsRoot, options, walk);
    if (launched.kind === 'refused') return { kind: 'refused', reason: launched.reason };
    result = launched.result;
  }
  const gate = step.openGate();
  if (gate) {
    const question = gate.kind === 'main' ? gateQuestion(graph, gate.node, gateId, new RunContext(result.state.context)) : { ...gate.question, id: gateId };
    writer.appendQuestion({ type: 'human:question', scope: gate.kind === 'main' ? MAIN_SCOPE : gate.scope, nodeId: question.nodeId, question });
    return { kind: 'gate', question, key: gate.key };
  }
  if (result.status !== 'paused') return { kind: 'finished', status: result.status, ...(result.failureReason ? { failureReason: result.failureReason } : {}) };
  return { kind: 'advanced', at: result.pausedAt };
}

/**
 * The working-directory contract: a run's cwd and run directory are absolute paths on a file system
 * every worker mounts at the same place, so whichever worker takes the next step finds them.
 */
function workingDirectoryProblem(request: RunRequest): string | undefined {
  for (const [what, dir] of [['cwd', request.cwd], ['run directory', request.logsRoot]] as const) {
    if (!path.isAbsolute(dir)) return `the run's ${what} ${dir} is not an absolute path: a run on Restate needs paths every worker shares`;
  }
  if (!isDirectory(request.cwd)) return `the run's cwd ${request.cwd} is not a directory on this worker (${os.hostname()}): every worker must mount the shared file system at the same path`;
  return undefined;
}

/** The files the run may load: under the roots of the server that submitted it, when it named any. */
function loadScope(request: RunRequest): { readonly files?: FileScope } | string {
  if (!request.roots) return {};
  try {
    return { files: FileScope.within(request.roots, "the server's roots") };
  } catch (error) {
    return `the run's roots are not all directories on this worker (${os.hostname()}): ${(error as Error).message}`;
  }
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

type CheckpointRead = { readonly kind: 'none' } | { readonly kind: 'unreadable'; readonly reason: string } | { readonly kind: 'read'; readonly status: RunState['status']; readonly failureReason?: string };

function readCheckpoint(logsRoot: string): CheckpointRead {
  if (!hasCheckpoint(logsRoot)) return { kind: 'none' };
  try {
    const state = loadCheckpoint(logsRoot);
    return { kind: 'read', status: state.status, ...(state.failureReason ? { failureReason: state.failureReason } : {}) };
  } catch (error) {
    if (error instanceof CheckpointError) return { kind: 'unreadable', reason: error.message };
    throw error;
  }
}

/** Settles a cancelled run's directory as `attractor resume` expects it: `cancelled` at its last boundary. */
export async function cancelRun(request: RunRequest, engine: StepEngine): Promise<void> {
  const checkpoint = readCheckpoint(request.logsRoot);
  if (checkpoint.kind !== 'read' || checkpoint.status === 'success' || checkpoint.status === 'fail' || checkpoint.status === 'cancelled') return;
  const cancelled = new AbortController();
  cancelled.abort();
  const events = new EventBus();
  events.on(new StepEventsWriter(request.logsRoot, true).record);
  await resumeRun(request.logsRoot, { cwd: request.cwd, backend: engine.backend, interviewer: new CallbackInterviewer(() => Promise.reject(new Error('cancelled'))), events, runner: engine.runner, signal: cancelled.signal, ...(engine.workspaceStores ? { workspaceStores: engine.workspaceStores } : {}) });
}

