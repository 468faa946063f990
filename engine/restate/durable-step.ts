import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gateQuestion } from '../handlers/human';
import type { Graph, GraphNode } from '../model/graph';
import { isExitNode, resolveHandlerType } from '../model/handler-types';
import { preparePipeline } from '../prepare';
import type { CodergenBackend } from '../runtime/backend';
import { EventBus, MAIN_SCOPE } from '../runtime/events';
import type { HumanQuestion } from '../runtime/events';
import type { Answer, Interviewer } from '../runtime/interviewer';
import { CallbackInterviewer } from '../runtime/interviewer';
import { admitPipeline, pausingWalk, resumeRun, resumeRunWith, runAdmittedWith } from '../runtime/launch';
import { CheckpointError, loadCheckpoint } from '../runtime/run-directory';
import type { RunnerIdentity } from '../runtime/run-directory';
import type { PausedRun, RunResult } from '../runtime/runner';
import { RunLock } from '../runtime/run-lock';
import type { RunState } from '../runtime/state';
import type { StepKind } from './run-events-file';
import { StepEventsWriter } from './run-events-file';
import type { RunRequest } from './run-request';

/** What a worker runs every step with: the same for every run it serves. */
export interface StepEngine {
  readonly backend: CodergenBackend;
  readonly runner: RunnerIdentity;
  readonly defaultMaxParallel?: number;
}

/** How one durable step left the run: the workflow journals it, so it is plain JSON. */
export type StepOutcome =
  | { readonly kind: 'advanced'; readonly at: string }
  | { readonly kind: 'gate'; readonly question: HumanQuestion }
  | { readonly kind: 'finished'; readonly status: RunResult['status']; readonly failureReason?: string }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * One node visit of a run, from its run directory on the shared file system: starts the run when its
 * directory holds none yet, else resumes it from its checkpoint, and pauses at the next boundary. A
 * human gate is a step of its own: without `answer` the step pauses before the gate and asks for one.
 * A step that dies half-way is simply taken again: the engine's resume redoes the node in flight, and
 * a node already checkpointed is not run again.
 */
export async function advanceRun(request: RunRequest, engine: StepEngine, gateId: string, answer: Answer | undefined): Promise<StepOutcome> {
  const contract = workingDirectoryProblem(request);
  if (contract) return { kind: 'refused', reason: contract };
  // Another engine still holds the run (an earlier attempt of this step, alive, or one on another host
  // whose lease has not lapsed yet): failing the step makes Restate retry it later, not end the run.
  const holder = RunLock.liveHolder(request.logsRoot);
  if (holder) throw new Error(holder);
  const graph = preparePipeline(request.source, { ...(request.sourcePath ? { sourcePath: request.sourcePath } : {}), params: request.params }).graph;
  if (!graph) return { kind: 'refused', reason: 'the pipeline does not parse' };
  const checkpoint = readCheckpoint(request.logsRoot);
  if (checkpoint.kind === 'unreadable') return { kind: 'refused', reason: checkpoint.reason };
  const step = new OneVisit(graph, answer);
  const events = recordedEvents(request, { continuation: checkpoint.kind === 'read', answered: answer !== undefined });
  const options = { backend: engine.backend, interviewer: step.interviewer, events, runner: engine.runner, ...(engine.defaultMaxParallel !== undefined ? { defaultMaxParallel: engine.defaultMaxParallel } : {}) };
  const walk = pausingWalk((nodeId) => step.pauseBefore(nodeId));
  let result: RunResult | PausedRun;
  if (checkpoint.kind === 'none') {
    const admission = admitPipeline(request.source, { ...options, logsRoot: request.logsRoot, params: request.params, ...(request.sourcePath ? { sourcePath: request.sourcePath } : {}) });
    if (admission.kind === 'refused') return { kind: 'refused', reason: admission.reason };
    result = await runAdmittedWith({ ...options, graph: admission.graph, source: request.source, cwd: request.cwd, logsRoot: request.logsRoot, params: request.params }, walk);
  } else if (checkpoint.status === 'success' || checkpoint.status === 'fail') {
    // The step that finished the run died before Restate journaled its outcome.
    return { kind: 'finished', status: checkpoint.status, ...(checkpoint.failureReason ? { failureReason: checkpoint.failureReason } : {}) };
  } else {
    const launched = await resumeRunWith(request.logsRoot, options, walk);
    if (launched.kind === 'refused') return { kind: 'refused', reason: launched.reason };
    result = launched.result;
  }
  if (result.status !== 'paused') return { kind: 'finished', status: result.status, ...(result.failureReason ? { failureReason: result.failureReason } : {}) };
  const gate = step.unansweredGate();
  if (!gate) return { kind: 'advanced', at: result.pausedAt };
  const question = gateQuestion(graph, gate, gateId);
  events.emit({ type: 'human:question', scope: MAIN_SCOPE, nodeId: gate.id, question });
  return { kind: 'gate', question };
}

/** The step's event bus, recorded in the run's events file for whoever follows the run (`attractor serve --on`). */
function recordedEvents(request: RunRequest, step: StepKind): EventBus {
  const events = new EventBus();
  events.on(new StepEventsWriter(request.logsRoot, step).record);
  return events;
}

/** A step's walk: one main-walk node visit (exit nodes ride along), or none before a gate it has no answer for. */
class OneVisit {
  private visited = false;
  private gateAhead: GraphNode | undefined;
  readonly interviewer: Interviewer;

  constructor(
    private readonly graph: Graph,
    private answer: Answer | undefined,
  ) {
    this.interviewer = new CallbackInterviewer(async (question) => {
      const given = this.answer;
      this.answer = undefined;
      if (given !== undefined) return given;
      throw new Error(`human gate ${question.nodeId} is inside a fan-out branch or sub-pipeline: a run on Restate answers only the main walk's gates`);
    });
  }

  pauseBefore(nodeId: string): boolean {
    const node = this.graph.nodes.get(nodeId);
    if (!node || isExitNode(node)) return false;
    if (this.visited) return true;
    if (resolveHandlerType(node) === 'wait.human' && this.answer === undefined) {
      this.gateAhead = node;
      return true;
    }
    this.visited = true;
    return false;
  }

  /** The gate the step paused before, unanswered. */
  unansweredGate(): GraphNode | undefined {
    return this.visited ? undefined : this.gateAhead;
  }
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

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

type CheckpointRead = { readonly kind: 'none' } | { readonly kind: 'unreadable'; readonly reason: string } | { readonly kind: 'read'; readonly status: RunState['status']; readonly failureReason?: string };

function readCheckpoint(logsRoot: string): CheckpointRead {
  if (!fs.existsSync(path.join(logsRoot, 'checkpoint.json'))) return { kind: 'none' };
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
  const events = recordedEvents(request, { continuation: true, answered: false });
  await resumeRun(request.logsRoot, { backend: engine.backend, interviewer: new CallbackInterviewer(() => Promise.reject(new Error('cancelled'))), events, runner: engine.runner, signal: cancelled.signal });
}

