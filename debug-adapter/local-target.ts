import fs from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../engine/model/diagnostic-format';
import type { CodergenBackend } from '../engine/runtime/backend';
import type { NodeBoundary } from '../engine/runtime/controller';
import { RunContext } from '../engine/runtime/context';
import { EventBus } from '../engine/runtime/events';
import type { RunEvent, WalkScope } from '../engine/runtime/events';
import type { GateReply } from '../engine/runtime/interviewer';
import { ScriptedFirstInterviewer } from '../engine/runtime/interviewer';
import { isMaxParallel } from '../engine/runtime/join-policy';
import { isSandboxSetting, sandboxSettings } from '../engine/model/sandbox-setting';
import type { LaunchResult } from '../engine/runtime/launch';
import { launchPipelineFile, resumeRun } from '../engine/runtime/launch';
import { forkRunDirectory, siblingRunDirectory } from '../engine/runtime/branch-run';
import { hasCheckpoint } from '../engine/runtime/run-layout';
import { RUN_FILES } from '../engine/runtime/run-file-names';
import type { BackendChoice, BackendFactory } from '../host/backends';
import { chooseBackend } from '../host/backends';
import type { AttractorLaunchArguments, ExceptionFilterId } from '../host/protocol/debug';
import { HUMAN_GATE_STOP_REASON, runDefaults } from '../host/protocol/debug';
import type { Carried, ConsoleLine, RunTarget, RunTargetEvents, TravelRequest } from '../host/run-target';
import { TargetRefusal } from '../host/run-target';
import type { SourceCatalog } from '../host/source-catalog';
import { humanGateMessage } from '../host/view/run-projection';
import type { BreakpointBook } from './breakpoints';
import type { LogpointPlace } from './debug-controller';
import { DebugController } from './debug-controller';
import { classifyFailure } from './exceptions';
import { GateDesk } from './human-gates';
import { LocalInspection } from './local-inspection';
import { notLaunched, notPausedForTravel } from './refusals';
import { RunFeed } from './run-feed';
import type { DebugThread, StepMode, StopReason } from './threads';
import { MAIN_THREAD_ID } from './threads';
import type { Boundary } from './time-travel';
import { CheckpointHistory, prepareBranchTravel, travelRefusal } from './time-travel';

export interface LocalTargetSettings {
  readonly breakpoints: BreakpointBook;
  /** The session's set, changed in place by setExceptionBreakpoints: the running controller reads it. */
  readonly exceptionFilters: ReadonlySet<ExceptionFilterId>;
  readonly sources: SourceCatalog;
  /** Serves provider backends (`backend: "openai"` ...); without it only `scripted` and `llm` run. */
  readonly backendFactory: BackendFactory | undefined;
}

/** What `launch` asked for, checked. */
interface Launch {
  readonly args: AttractorLaunchArguments;
  readonly program: string;
  readonly choice: BackendChoice;
  /** Where the session's runs work: the launch's `cwd`, else the program's folder. */
  readonly cwd: string;
  /** The first run's directory; restarts and time-travel branches go beside it. */
  readonly logsRoot: string;
}

/** One run of the pipeline under the debugger; time travel and restart replace it with another. */
interface ActiveRun {
  readonly controller: DebugController;
  readonly abort: AbortController;
  readonly history: CheckpointHistory;
  readonly feed: RunFeed;
  readonly gates: GateDesk;
  readonly startedAt: number;
  logsRoot: string;
  runId?: string;
  /** Settles once the runner returned and its last checkpoint is on disk. */
  done: Promise<void>;
  superseded: boolean;
}

type RunStart =
  | { readonly kind: 'fresh'; readonly logsRoot: string }
  | { readonly kind: 'resume'; readonly directory: string; readonly entryStop?: StopReason; readonly branch?: { readonly parent: CheckpointHistory; readonly from: Boundary } };

/** Where time travel starts from: the main walk's node boundary (a sub-pipeline counts as its folder node). */
interface TravelAnchor {
  readonly run: ActiveRun;
  readonly node: NodeBoundary;
  /** Whether that node already ran (else the thread stopped before it). */
  readonly ran: boolean;
}

/**
 * The pipeline run in this process, under the debugger: the engine's controller seams decide where
 * it pauses (DebugController), its human gates wait for `answer` (GateDesk), and its checkpoints
 * let it travel back to an earlier node boundary in a new branch run.
 */
export class LocalRunTarget implements RunTarget {
  private launched: Launch | undefined;
  private backend: CodergenBackend | undefined;
  private run: ActiveRun | undefined;
  private readonly inspection: LocalInspection;
  /** Each LLM call's way to fail its node's attempt, by progress id. */
  private readonly cancellable = new Map<string, (reason: string) => void>();

  constructor(
    private readonly settings: LocalTargetSettings,
    private readonly events: RunTargetEvents,
  ) {
    this.inspection = new LocalInspection(settings.sources, () => this.run, () => this.launched?.program ?? '');
  }

  /** Checks launch.json's arguments and chooses the backend: the program to run, or why not. */
  prepare(args: AttractorLaunchArguments): { ok: true; program: string } | { ok: false; message: string } {
    if (typeof args.program !== 'string' || args.program === '') return { ok: false, message: 'launch.json needs "program": the .dot pipeline to run' };
    const program = path.resolve(args.program);
    if (!args.resume && !fs.existsSync(program)) return { ok: false, message: `program ${program} does not exist` };
    if (args.resume && !hasCheckpoint(args.resume)) return { ok: false, message: `resume: ${args.resume} is not a run directory (no ${RUN_FILES.checkpoint})` };
    if (args.maxParallel !== undefined && !isMaxParallel(args.maxParallel)) return { ok: false, message: `"maxParallel" must be an integer of at least 1 (got ${JSON.stringify(args.maxParallel)})` };
    if (args.sandbox !== undefined && !isSandboxSetting(args.sandbox)) return { ok: false, message: `"sandbox" must be one of ${sandboxSettings.join(', ')} (got ${JSON.stringify(args.sandbox)})` };
    const { backendFactory } = this.settings;
    const chosen = chooseBackend(args, { baseDir: path.dirname(program), ...(backendFactory ? { factory: backendFactory } : {}) });
    if (!chosen.ok) return chosen;
    const cwd = path.resolve(args.cwd ?? path.dirname(program));
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const logsRoot = path.resolve(args.resume ?? args.logsRoot ?? path.join(cwd, '.attractor-runs', `${path.basename(program, '.dot')}-${stamp}`));
    this.launched = { args, program, choice: chosen.choice, cwd, logsRoot };
    this.backend = chosen.choice.create();
    return { ok: true, program };
  }

  /** Starts the prepared run. */
  start(): void {
    const { args, logsRoot } = this.launch();
    const entryStop: StopReason | undefined = args.stopOnEntry ? 'entry' : undefined;
    this.startRun(args.resume ? { kind: 'resume', directory: path.resolve(args.resume), ...(entryStop ? { entryStop } : {}) } : { kind: 'fresh', logsRoot }, entryStop);
  }

  // ---- inspection ----

  threads() {
    return this.inspection.threads();
  }

  stack(threadId: number) {
    return this.inspection.stack(threadId);
  }

  scopes(frameId: number) {
    return this.inspection.scopes(frameId);
  }

  async variables(reference: number) {
    return this.inspection.variables(reference);
  }

  setVariable(reference: number, name: string, value: string): string {
    return this.inspection.setVariable(reference, name, value);
  }

  async context(frameId: number | undefined): Promise<RunContext | undefined> {
    return this.inspection.context(frameId);
  }

  exception(threadId: number) {
    return this.run?.controller.thread(threadId)?.stop?.exception;
  }

  stepInTargets(frameId: number) {
    return this.inspection.stepInTargets(frameId);
  }

  /** The controller reads the book at every boundary. */
  breakpointsChanged(): void {}

  // ---- execution ----

  continue(threadId: number, singleThread: boolean): Carried<{ allThreadsContinued: boolean }> {
    const gateWaits = this.run?.controller.allThreads().some((t) => t.place?.kind === 'gate') === true;
    this.resumeThread(threadId, () => ({ kind: 'run' }), singleThread);
    return { body: { allThreadsContinued: !singleThread && !gateWaits } };
  }

  next(threadId: number, singleThread: boolean): void {
    this.resumeThread(threadId, (t) => ({ kind: 'next', depth: t.depth }), singleThread);
  }

  stepIn(threadId: number, targetId: number | undefined, singleThread: boolean): void {
    if (targetId === undefined) return this.resumeThread(threadId, () => ({ kind: 'stepIn' }), singleThread);
    const thread = this.stoppedThread(threadId);
    const from = thread?.place?.kind === 'edge' ? thread.place.edgeBoundary.from : thread?.lastNode?.nodeId;
    const edge = thread?.lastNode?.graph.edges[targetId];
    if (!thread || !from || !edge || edge.from !== from) throw new TargetRefusal(1004, `step-in target ${targetId} is not an outgoing edge of the current node`);
    thread.forcedEdge = { from, index: edge.index };
    this.resumeThread(threadId, (t) => ({ kind: 'next', depth: t.depth }), singleThread);
  }

  stepOut(threadId: number, singleThread: boolean): void {
    this.resumeThread(threadId, (t) => (t.depth > 0 ? { kind: 'stepOut', depth: t.depth } : { kind: 'run' }), singleThread);
  }

  pause(threadId: number): void {
    const thread = this.run?.controller.thread(threadId);
    if (thread) this.run?.controller.pause(thread);
  }

  answer(gateId: string, reply: GateReply): void {
    const result = this.run?.gates.answer(gateId, reply) ?? { ok: false as const, message: 'no run is active' };
    if (!result.ok) throw new TargetRefusal(1014, result.message);
  }

  cancelProgress(progressId: string): void {
    this.cancellable.get(progressId)?.('cancelled from the progress notification');
  }

  async restart(): Promise<Carried> {
    const launched = this.launched;
    if (!launched) throw notLaunched();
    await this.supersede();
    this.backend = launched.choice.create();
    return { after: () => this.startRun({ kind: 'fresh', logsRoot: siblingRunDirectory(launched.logsRoot, 'restart') }, launched.args.stopOnEntry ? 'entry' : undefined) };
  }

  restartFrame(frameId: number | undefined, request: TravelRequest): Promise<Carried> {
    const ref = this.inspection.frameRef(frameId);
    if (ref && ref.thread.id !== MAIN_THREAD_ID) throw new TargetRefusal(1007, 'restartFrame works on the main thread (parallel branches are not checkpointed)');
    return this.travel(request, ({ run, node }) => run.history.at(node.step), 'restart frame', 'restart');
  }

  stepBack(request: TravelRequest): Promise<Carried> {
    return this.travel(request, ({ run, node, ran }) => (ran ? run.history.at(node.step) : run.history.before(node.step)), 'step back', 'step');
  }

  reverseContinue(request: TravelRequest): Promise<Carried> {
    return this.travel(
      request,
      ({ run, node, ran }) => {
        const upTo = ran ? node.step + 1 : node.step;
        return run.history.between(-1, upTo).find((b) => this.wouldBreak(b)) ?? run.history.first();
      },
      'reverse continue',
      'breakpoint',
    );
  }

  terminate(): Carried {
    return { after: () => void this.stopRun() };
  }

  async disconnect(): Promise<void> {
    await this.stopRun();
  }

  // ---- the run ----

  private launch(): Launch {
    if (!this.launched) throw new Error('the run target was not prepared');
    return this.launched;
  }

  private startRun(start: RunStart, entryStop?: StopReason): void {
    const { args, program, choice, cwd } = this.launch();
    const events = new EventBus();
    const abort = new AbortController();
    const controller = new DebugController(
      { breakpoints: this.settings.breakpoints, exceptionFilters: this.settings.exceptionFilters },
      {
        stopped: (thread) => this.onStopped(run, thread),
        logpoint: (_thread, message, at) => this.events.output({ category: 'console', text: `${message}\n`, ...this.logpointAnchor(at) }),
        threadStarted: (thread) => this.events.thread('started', thread.id),
        threadExited: (thread) => this.events.thread('exited', thread.id),
      },
      start.kind === 'resume' ? start.entryStop : entryStop,
    );
    const gates = new GateDesk({
      opened: (question, scope) => {
        const { type: _type, ...gate } = humanGateMessage(question);
        this.events.view('humanGate', { ...gate, threadId: controller.threadFor(scope).id });
        controller.gateOpened(scope, question.id, question.text);
      },
      closed: (gateId) => {
        this.events.view('humanGateClosed', { gateId });
        const thread = controller.gateClosed(gateId);
        if (thread && !run.superseded) this.onContinued(run, thread);
      },
    });
    const run: ActiveRun = {
      controller,
      abort,
      history: new CheckpointHistory(start.kind === 'resume' ? start.branch : undefined),
      feed: new RunFeed(this.events, program, () => run.logsRoot),
      gates,
      startedAt: performance.now(),
      logsRoot: start.kind === 'fresh' ? start.logsRoot : start.directory,
      done: Promise.resolve(),
      superseded: false,
    };
    this.run = run;
    events.on((event) => this.onRunEvent(run, event));
    const interviewer = new ScriptedFirstInterviewer(choice.humanAnswers, gates);
    // A resumed run (time travel's branches too) continues only in the working directory the launch names.
    const options = { backend: this.backend as CodergenBackend, interviewer, events, controller, signal: abort.signal, cwd, ...runDefaults(args) };
    const launched = start.kind === 'fresh' ? launchPipelineFile(program, { ...options, logsRoot: start.logsRoot, ...(args.params ? { params: args.params } : {}) }) : resumeRun(start.directory, options);
    run.done = launched.then(
      (result) => this.onRunFinished(run, result),
      (error: unknown) => this.onRunFinished(run, { kind: 'refused', diagnostics: [], reason: `engine error: ${error instanceof Error ? error.message : String(error)}` }),
    );
  }

  private onRunEvent(run: ActiveRun, event: RunEvent): void {
    if (run.superseded) return;
    if (event.type === 'run:start') {
      run.logsRoot = event.logsRoot;
      run.runId = event.runId;
    }
    if (event.type === 'checkpoint') run.history.noteCheckpoint(event.state);
    if (event.type === 'trace') run.history.noteTrace(event.record);
    if (event.type === 'human:question') run.gates.noteQuestion(event.question, event.scope);
    if (event.type === 'jump') {
      const hit = classifyFailure(event, this.settings.exceptionFilters);
      if (hit) run.controller.noteException(event.scope, hit);
    }
    if (event.type === 'parallel:end') run.controller.exitBranches(event.scope);
    if (event.type === 'agent') this.progress(run, event.scope, event.nodeId, event.event.event);
    run.feed.event(event);
  }

  private progress(run: ActiveRun, scope: WalkScope, nodeId: string, kind: string): void {
    const id = `llm:${scope.id}:${nodeId}`;
    if (kind === 'prompt:submit') {
      const boundary = run.controller.threadFor(scope).lastNode;
      if (boundary) this.cancellable.set(id, boundary.cancelNode);
      this.events.progressStart(id, `LLM call: ${nodeId}`, boundary !== undefined);
    } else if (kind === 'prompt:complete' || kind === 'session:end') {
      this.cancellable.delete(id);
      this.events.progressEnd(id);
    }
  }

  private async onRunFinished(run: ActiveRun, result: LaunchResult): Promise<void> {
    if (run.superseded) return;
    if (result.kind === 'refused') {
      for (const d of result.diagnostics) this.events.output({ category: 'stderr', text: `${formatDiagnostic(this.launch().program, d)}\n` });
      this.events.output({ category: 'stderr', text: `attractor: ${result.reason}\n` });
      this.events.ended(2);
      return;
    }
    const failure = result.result.status === 'fail' ? classifyFailure({ reason: result.result.failureReason ?? '', ...(result.result.failureKind ? { failureKind: result.result.failureKind } : {}) }, this.settings.exceptionFilters) : undefined;
    if (failure) {
      await run.controller.haltAfterRun(failure);
      // Released by continue or terminate alike; only a run replaced by time travel ends silently.
      if (run.superseded) return;
    }
    this.events.ended(result.result.status === 'success' ? 0 : 1);
  }

  private onStopped(run: ActiveRun, thread: DebugThread): void {
    if (run.superseded) return;
    this.inspection.reset();
    const stop = thread.stop;
    if (!stop) return;
    run.feed.showPaused(true, thread.place?.kind === 'ended' ? undefined : thread.place?.boundary.nodeId);
    this.events.stopped({
      threadId: thread.id,
      reason: stop.reason === 'human gate' ? HUMAN_GATE_STOP_REASON : stop.reason,
      ...(stop.description !== undefined ? { text: stop.description } : {}),
      ...(stop.description ? { description: stop.description } : {}),
      ...(stop.hitBreakpointIds ? { hitBreakpointIds: stop.hitBreakpointIds } : {}),
      allThreadsStopped: run.controller.allThreads().length === 1,
    });
  }

  private onContinued(run: ActiveRun, thread: DebugThread): void {
    run.feed.showPaused(run.controller.allThreads().some((t) => t.isStopped));
    this.events.continued(thread.id, false);
  }

  /** Cancels the current run and waits until its last checkpoint is written. */
  private async stopRun(): Promise<ActiveRun | undefined> {
    const run = this.run;
    if (!run) return undefined;
    run.abort.abort(new Error('stopped by the debugger'));
    run.controller.abort();
    await run.done;
    return run;
  }

  /** Stops the current run for good: what it does from now on is not shown. */
  private async supersede(): Promise<ActiveRun | undefined> {
    const run = this.run;
    if (!run) return undefined;
    run.superseded = true;
    run.feed.close();
    await this.stopRun();
    for (const thread of run.controller.allThreads()) if (thread.id !== MAIN_THREAD_ID) this.events.thread('exited', thread.id);
    return run;
  }

  private stoppedThread(threadId: number): DebugThread | undefined {
    const thread = this.run?.controller.thread(threadId);
    return thread?.isStopped ? thread : undefined;
  }

  private resumeThread(threadId: number, mode: (thread: DebugThread) => StepMode, singleThread: boolean): void {
    const run = this.run;
    const thread = run?.controller.thread(threadId);
    if (!run || !thread) throw new TargetRefusal(1003, `no thread ${threadId}`);
    // Only an answer moves a waiting gate on; a resume the client took for done would show it running.
    if (thread.place?.kind === 'gate') throw new TargetRefusal(1015, `${thread.place.boundary.nodeId} is waiting for an answer: answer the gate in the graph view or the quick pick`, true);
    this.inspection.reset();
    run.controller.resume(thread, mode(thread), singleThread);
    run.feed.notePaused(run.controller.allThreads().some((t) => t.isStopped));
  }

  // ---- time travel ----

  private travelAnchor(thread: DebugThread | undefined): TravelAnchor | undefined {
    const run = this.run;
    if (!run || !thread || thread.id !== MAIN_THREAD_ID) return undefined;
    const node = thread.lastTopNode;
    if (!node) return undefined;
    // Stopped before the top-level node ran (and not inside its sub-pipeline)?
    const ran = !(thread.place?.kind === 'node' && thread.place.boundary === node);
    return { run, node, ran };
  }

  /** Continues from an earlier node boundary in a new branch run beside the first; the run left behind stays as it was. */
  private async travel(request: TravelRequest, pick: (anchor: TravelAnchor) => Boundary | undefined, reason: string, landing: StopReason): Promise<Carried> {
    const thread = this.stoppedThread(MAIN_THREAD_ID);
    const anchor = this.travelAnchor(thread);
    if (!anchor) throw notPausedForTravel();
    const boundary = pick(anchor);
    if (!boundary) throw new TargetRefusal(1006, 'there is no earlier node boundary to go back to');
    const { logsRoot, cwd } = this.launch();
    const target = siblingRunDirectory(logsRoot, 'branch');
    const parentRoot = anchor.run.logsRoot;
    const lastSnapshot = thread?.lastOutcome?.files?.after ?? anchor.run.history.latestSnapshot();
    const prepared = prepareBranchTravel(parentRoot, target, boundary, cwd, lastSnapshot, request.arguments);
    if (prepared.kind === 'changed-elsewhere') {
      const refusal = travelRefusal(request.command, request.arguments, prepared);
      this.events.view('travelRefused', refusal.event);
      throw new TargetRefusal(1009, refusal.message);
    }
    const parent = await this.supersede();
    forkRunDirectory(parentRoot, target, boundary, reason);
    const workspace = prepared.kind === 'ready' ? prepared.restore() : prepared;
    return {
      after: () => {
        this.events.output({ category: 'important', text: `${reason}: continuing from before ${boundary.state.nextNodeId} (step ${boundary.state.step}) in a new branch ${target}\n` });
        if (workspace.kind === 'restored') {
          const overBudget = workspace.record.overBudget ?? [];
          if (overBudget.length > 0) this.events.output({ category: 'important', text: `${reason}: left as it is, past the snapshot budget (in no snapshot): ${overBudget.join(', ')}\n` });
          this.events.view('workspaceRestored', { branch: target, cwd: workspace.record.cwd, discarded: workspace.record.discarded.length, overBudget });
        }
        else this.events.output({ category: 'important', text: `${reason}: the working directory was NOT restored (${workspace.reason}); the files are as the run left them\n` });
        this.startRun({ kind: 'resume', directory: target, entryStop: landing, ...(parent ? { branch: { parent: parent.history, from: boundary } } : {}) });
      },
    };
  }

  /** Whether a breakpoint would stop before the node a boundary runs next (for reverseContinue). */
  private wouldBreak(boundary: Boundary): boolean {
    const file = boundary.state.sourcePath ?? this.launch().program;
    const visit = (boundary.state.visits[boundary.state.nextNodeId] ?? 0) + 1;
    return this.settings.breakpoints.peekNode(file, boundary.state.nextNodeId, visit, new RunContext(boundary.state.context));
  }

  // ---- helpers ----

  private logpointAnchor(at: LogpointPlace): Pick<ConsoleLine, 'node' | 'source'> {
    if (at.kind === 'node') return { node: { scope: at.boundary.scope, nodeId: at.boundary.nodeId } };
    const file = at.boundary.graph.sourcePath ?? this.launch().program;
    return { source: { file, line: this.settings.sources.lineOf(file, at.boundary.selected.range) ?? 0 } };
  }
}
