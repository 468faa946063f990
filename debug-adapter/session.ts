import fs from 'node:fs';
import path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { BreakpointEvent, CapabilitiesEvent, ContinuedEvent, DebugSession, Event, ExitedEvent, Handles, InitializedEvent, OutputEvent, ProgressEndEvent, ProgressStartEvent, Scope, Source, StoppedEvent, TerminatedEvent, Thread, ThreadEvent } from '@vscode/debugadapter';
import { formatDiagnostic } from '../engine/model/diagnostic-format';
import type { Graph } from '../engine/model/graph';
import type { SourceSpan } from '../engine/model/source';
import type { CodergenBackend } from '../engine/runtime/backend';
import type { NodeBoundary } from '../engine/runtime/controller';
import { existingWorkspaceStore, restoreWorkspaceForBranch } from '../engine/runtime/workspace-snapshot';
import { EventBus } from '../engine/runtime/events';
import { ScriptedFirstInterviewer } from '../engine/runtime/interviewer';
import type { RunEvent, WalkScope } from '../engine/runtime/events';
import type { LaunchResult } from '../engine/runtime/launch';
import { launchPipelineFile, resumeRun } from '../engine/runtime/launch';
import { RunContext } from '../engine/runtime/context';
import { isMaxParallel } from '../engine/runtime/join-policy';
import type { BackendChoice, BackendFactory } from '../host/backends';
import { chooseBackend } from '../host/backends';
import { BreakpointBook } from './breakpoints';
import type { ConsoleLine } from './console-output';
import { consoleLines } from './console-output';
import { evaluateContextExpression, parseContextExpression } from './context-expression';
import type { LogpointPlace } from './debug-controller';
import { DebugController } from './debug-controller';
import { classifyFailure } from './exceptions';
import { GateDesk } from './human-gates';
import { GraphStateTracker } from '../host/view/graph-state';
import { humanGateMessage } from '../host/view/run-projection';
import type { AttractorLaunchArguments, CustomEventBodies, CustomEventName, ExceptionFilterId } from '../host/protocol/debug';
import { HUMAN_GATE_STOP_REASON, SERVER_TOKEN_ENV, exceptionFilters, parseAnswerGateArguments, parseAttachArguments, runDefaults } from '../host/protocol/debug';
import type { AttachmentEnd, RemoteStop } from './remote-attachment';
import { RemoteAttachment, findRun, localProgram } from './remote-attachment';
import { SourceCatalog } from '../host/source-catalog';
import type { DebugThread, StepMode, StopReason } from './threads';
import { MAIN_THREAD_ID } from './threads';
import type { Boundary } from './time-travel';
import { CheckpointHistory } from './time-travel';
import { forkRunDirectory, siblingRunDirectory } from '../engine/runtime/branch-run';
import type { ScopeKind, VisitChanges } from './variables';
import { attachedRunVariables, contextVariables, displayValue, fileVariables, heldOutcomeVariables, nodeVariables, outcomeVariables, parseTypedValue, runVariables, scopeTitles } from './variables';

export interface AttractorDebugSessionOptions {
  /** Serves provider backends (`backend: "openai"` ...); without it only `scripted` runs. */
  readonly backendFactory?: BackendFactory;
}

/** One run of the pipeline under the debugger; time travel and restart replace it with another. */
interface ActiveRun {
  readonly controller: DebugController;
  readonly abort: AbortController;
  readonly history: CheckpointHistory;
  readonly graphState: GraphStateTracker;
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

interface FrameRef {
  readonly thread: DebugThread;
  /** 0 is the current node; n is the n-th enclosing sub-pipeline node. */
  readonly index: number;
}

interface ScopeRef {
  readonly frame: FrameRef;
  readonly kind: ScopeKind;
}

/** The scopes of a run followed on a server: what its HTTP API shows of a held boundary. */
type AttachedScope = 'context' | 'outcome' | 'run';

/**
 * What `initialize` offers that a run followed on a server cannot do: time travel, restart, setVariable,
 * step-in targets, exception filters and LLM-call progress work on a run in this process only.
 */
const NOT_WHEN_ATTACHED: DebugProtocol.Capabilities = {
  supportsSetVariable: false,
  supportsStepBack: false,
  supportsRestartFrame: false,
  supportsRestartRequest: false,
  supportsStepInTargetsRequest: false,
  supportsExceptionInfoRequest: false,
  supportsSingleThreadExecutionRequests: false,
  supportsCancelRequest: false,
  exceptionBreakpointFilters: [],
};

const FRAME_STRIDE = 1000;
const GRAPH_STATE_INTERVAL_MS = 50;

/**
 * The Attractor debug adapter: translates DAP to the engine's controller seams and the engine's
 * run events to DAP. It holds no pipeline semantics; it decides only whether and where to pause.
 * The same class runs inline in the extension host and standalone over stdio (main.ts).
 */
export class AttractorDebugSession extends DebugSession {
  private readonly sources = new SourceCatalog();
  private readonly breakpoints = new BreakpointBook(this.sources);
  private exceptionFilters = new Set<ExceptionFilterId>();
  private readonly scopeHandles = new Handles<ScopeRef>();
  private readonly backendFactory: BackendFactory | undefined;
  private readonly cancellableProgress = new Map<string, (reason: string) => void>();
  private clientSupportsProgress = false;
  private configured!: () => void;
  private readonly configurationDone = new Promise<void>((resolve) => (this.configured = resolve));
  private args: AttractorLaunchArguments | undefined;
  private programPath = '';
  private originalLogsRoot = '';
  private backendChoice: BackendChoice | undefined;
  private backend: CodergenBackend | undefined;
  private run: ActiveRun | undefined;
  /** Set by `attach`: the session follows a run on a server instead of running one. */
  private attachment: RemoteAttachment | undefined;
  private readonly attachedScopes = new Handles<AttachedScope>();
  private terminated = false;
  private graphStateTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: AttractorDebugSessionOptions | boolean = {}) {
    super();
    this.backendFactory = typeof options === 'object' ? options.backendFactory : undefined;
    this.setDebuggerLinesStartAt1(false);
    this.setDebuggerColumnsStartAt1(false);
  }

  // ---- configuration ----

  protected override initializeRequest(response: DebugProtocol.InitializeResponse, args: DebugProtocol.InitializeRequestArguments): void {
    this.clientSupportsProgress = args.supportsProgressReporting === true;
    response.body = {
      supportsConfigurationDoneRequest: true,
      supportsFunctionBreakpoints: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsEvaluateForHovers: true,
      supportsSetVariable: true,
      supportsStepBack: true,
      supportsRestartFrame: true,
      supportsRestartRequest: true,
      supportsTerminateRequest: true,
      supportsStepInTargetsRequest: true,
      supportsExceptionInfoRequest: true,
      supportsSingleThreadExecutionRequests: true,
      supportsCancelRequest: true,
      supportsDelayedStackTraceLoading: false,
      exceptionBreakpointFilters: exceptionFilters.map((f) => ({ filter: f.filter, label: f.label, description: f.description, default: false })),
    };
    this.sendResponse(response);
    this.sendEvent(new InitializedEvent());
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.configured();
    this.sendResponse(response);
  }

  protected override setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    const file = args.source.path ? this.convertClientPathToDebugger(args.source.path) : undefined;
    if (!file) {
      response.body = { breakpoints: (args.breakpoints ?? []).map(() => ({ verified: false, message: 'only breakpoints in .dot files on disk are supported' })) };
      this.sendResponse(response);
      return;
    }
    this.sources.invalidate(file);
    const statuses = this.breakpoints.setSourceBreakpoints(
      file,
      (args.breakpoints ?? []).map((bp) => ({
        line: this.convertClientLineToDebugger(bp.line),
        ...(bp.condition !== undefined ? { condition: bp.condition } : {}),
        ...(bp.hitCondition !== undefined ? { hitCondition: bp.hitCondition } : {}),
        ...(bp.logMessage !== undefined ? { logMessage: bp.logMessage } : {}),
      })),
    );
    response.body = { breakpoints: statuses.map((s) => this.toDapBreakpoint(s, file)) };
    this.sendResponse(response);
    this.pushAttachedBreakpoints();
  }

  protected override setFunctionBreakPointsRequest(response: DebugProtocol.SetFunctionBreakpointsResponse, args: DebugProtocol.SetFunctionBreakpointsArguments): void {
    const statuses = this.breakpoints.setFunctionBreakpoints(
      args.breakpoints.map((bp) => ({ name: bp.name, ...(bp.condition !== undefined ? { condition: bp.condition } : {}), ...(bp.hitCondition !== undefined ? { hitCondition: bp.hitCondition } : {}) })),
    );
    response.body = { breakpoints: statuses.map((s) => this.toDapBreakpoint(s)) };
    this.sendResponse(response);
    this.pushAttachedBreakpoints();
  }

  protected override setExceptionBreakPointsRequest(response: DebugProtocol.SetExceptionBreakpointsResponse, args: DebugProtocol.SetExceptionBreakpointsArguments): void {
    const known = new Set<string>(exceptionFilters.map((f) => f.filter));
    const requested = [...args.filters, ...(args.filterOptions ?? []).map((o) => o.filterId)];
    // Mutated in place: the running controller holds this very set.
    this.exceptionFilters.clear();
    for (const id of requested) if (known.has(id)) this.exceptionFilters.add(id as ExceptionFilterId);
    response.body = { breakpoints: requested.map((id) => ({ verified: known.has(id), ...(known.has(id) ? {} : { message: `unknown exception filter ${id}` }) })) };
    this.sendResponse(response);
  }

  // ---- launch and lifecycle ----

  protected override async launchRequest(response: DebugProtocol.LaunchResponse, rawArgs: DebugProtocol.LaunchRequestArguments): Promise<void> {
    const args = rawArgs as DebugProtocol.LaunchRequestArguments & AttractorLaunchArguments;
    const refused = (message: string) => this.sendErrorResponse(response, { id: 1001, format: message, showUser: true });
    if (typeof args.program !== 'string' || args.program === '') return refused('launch.json needs "program": the .dot pipeline to run');
    const program = path.resolve(args.program);
    if (!args.resume && !fs.existsSync(program)) return refused(`program ${program} does not exist`);
    if (args.resume && !fs.existsSync(path.join(args.resume, 'checkpoint.json'))) return refused(`resume: ${args.resume} is not a run directory (no checkpoint.json)`);
    if (args.maxParallel !== undefined && !isMaxParallel(args.maxParallel)) return refused(`"maxParallel" must be an integer of at least 1 (got ${JSON.stringify(args.maxParallel)})`);
    const chosen = chooseBackend(args, { baseDir: path.dirname(program), ...(this.backendFactory ? { factory: this.backendFactory } : {}) });
    if (!chosen.ok) return refused(chosen.message);
    this.args = args;
    this.programPath = program;
    this.backendChoice = chosen.choice;
    this.backend = chosen.choice.create();
    const cwd = path.resolve(args.cwd ?? path.dirname(program));
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    this.originalLogsRoot = path.resolve(args.resume ?? args.logsRoot ?? path.join(cwd, '.attractor-runs', `${path.basename(program, '.dot')}-${stamp}`));
    // Breakpoints set before the program was read may bind now.
    this.sources.invalidate(program);
    for (const status of this.breakpoints.rebind(program)) this.sendEvent(new BreakpointEvent('changed', this.toDapBreakpoint(status, program)));
    for (const status of this.breakpoints.setProgram(program)) this.sendEvent(new BreakpointEvent('changed', this.toDapBreakpoint(status)));
    await this.configurationDone;
    this.sendResponse(response);
    const entryStop: StopReason | undefined = args.stopOnEntry ? 'entry' : undefined;
    this.startRun(args.resume ? { kind: 'resume', directory: path.resolve(args.resume), ...(entryStop ? { entryStop } : {}) } : { kind: 'fresh', logsRoot: this.originalLogsRoot }, entryStop);
  }

  // ---- attach: a run on a server ----

  protected override async attachRequest(response: DebugProtocol.AttachResponse, rawArgs: DebugProtocol.AttachRequestArguments): Promise<void> {
    const parsed = parseAttachArguments(rawArgs);
    if (!parsed.ok) return this.sendErrorResponse(response, { id: 1016, format: parsed.message, showUser: true });
    const args = parsed.value;
    // `initialize` cannot know it will be an attach: take back what only a launch can do.
    this.sendEvent(new CapabilitiesEvent(NOT_WHEN_ATTACHED));
    let attachment: RemoteAttachment;
    try {
      const { client, run } = await findRun(args, args.token ?? process.env[SERVER_TOKEN_ENV]);
      const program = await localProgram(args, client, run);
      this.programPath = program;
      attachment = new RemoteAttachment(client, run, program, this.breakpoints, this.sources, this.attachmentListener(run.logsRoot));
    } catch (error) {
      return this.sendErrorResponse(response, { id: 1017, format: `attach to ${args.url}: ${error instanceof Error ? error.message : String(error)}`, showUser: true });
    }
    this.sources.invalidate(this.programPath);
    for (const status of this.breakpoints.rebind(this.programPath)) this.sendEvent(new BreakpointEvent('changed', this.toDapBreakpoint(status, this.programPath)));
    for (const status of this.breakpoints.setProgram(this.programPath)) this.sendEvent(new BreakpointEvent('changed', this.toDapBreakpoint(status)));
    this.attachment = attachment;
    await this.configurationDone;
    try {
      await attachment.start();
    } catch (error) {
      this.attachment = undefined;
      return this.sendErrorResponse(response, { id: 1017, format: `attach to ${args.url}: ${error instanceof Error ? error.message : String(error)}`, showUser: true });
    }
    this.sendResponse(response);
    this.sendConsole({ category: 'important', text: `attached to run ${attachment.run.id} on ${attachment.serverUrl}; disconnecting leaves it running\n` });
  }

  private attachmentListener(logsRoot: string) {
    const graphState = new GraphStateTracker();
    /** The open gate of each node: a human:answer names its node, the graph view its gate. */
    const gates = new Map<string, string>();
    const sendGraphState = () => this.sendCustom('graphState', { ...graphState.snapshot(), program: this.programPath, logsRoot });
    return {
      stopped: (stop: RemoteStop) => {
        this.attachedScopes.reset();
        graphState.setPaused(true, this.attachment?.held?.nodeId);
        sendGraphState();
        const event = new StoppedEvent(stop.reason, MAIN_THREAD_ID, stop.description) as DebugProtocol.StoppedEvent;
        if (stop.hitBreakpointIds) event.body.hitBreakpointIds = [...stop.hitBreakpointIds];
        event.body.allThreadsStopped = true;
        this.sendEvent(event);
      },
      continued: () => {
        graphState.setPaused(false);
        sendGraphState();
        this.sendEvent(new ContinuedEvent(MAIN_THREAD_ID, true));
      },
      logpoint: (message: string) => this.sendConsole({ category: 'console', text: `${message}\n` }),
      warning: (message: string) => this.sendConsole({ category: 'stderr', text: `attractor: ${message}\n` }),
      runEvent: (event: RunEvent) => {
        for (const line of consoleLines(event)) this.sendConsole(line);
        if (event.type === 'trace') this.sendCustom('traceEntry', { record: event.record, logsRoot });
        if (event.type === 'human:question') {
          gates.set(event.nodeId, event.question.id);
          const { type: _type, ...gate } = humanGateMessage(event.question);
          this.sendCustom('humanGate', { ...gate, threadId: MAIN_THREAD_ID });
        }
        const answered = event.type === 'human:answer' ? gates.get(event.nodeId) : undefined;
        if (answered && event.type === 'human:answer') {
          gates.delete(event.nodeId);
          this.sendCustom('humanGateClosed', { gateId: answered });
        }
        if (graphState.apply(event)) this.scheduleGraphState(sendGraphState);
      },
      ended: (end: AttachmentEnd) => {
        if (end.kind === 'lost') this.sendConsole({ category: 'stderr', text: `attractor: lost the server: ${end.message}\n` });
        else this.sendEvent(new ExitedEvent(end.status === 'success' ? 0 : 1));
        sendGraphState();
        this.sendTerminated();
      },
    };
  }

  /** An attached session's breakpoints live on the server too: it holds the run where they are. */
  private pushAttachedBreakpoints(): void {
    this.attachment?.pushBreakpoints().catch((error: unknown) => this.sendConsole({ category: 'stderr', text: `attractor: the server did not take the breakpoints: ${error instanceof Error ? error.message : String(error)}\n` }));
  }

  /** Runs an execution request against the attached run, answering with the server's refusal if any. */
  private async attachedControl(response: DebugProtocol.Response, act: (attachment: RemoteAttachment) => Promise<void>): Promise<void> {
    const attachment = this.attachment as RemoteAttachment;
    try {
      await act(attachment);
    } catch (error) {
      return this.sendErrorResponse(response, { id: 1018, format: error instanceof Error ? error.message : String(error) });
    }
    this.attachedScopes.reset();
    this.sendResponse(response);
  }

  private startRun(start: RunStart, entryStop?: StopReason): ActiveRun {
    const args = this.args as AttractorLaunchArguments;
    const events = new EventBus();
    const abort = new AbortController();
    const branch = start.kind === 'resume' ? start.branch : undefined;
    const history = new CheckpointHistory(branch);
    const graphState = new GraphStateTracker();
    const controller = new DebugController(
      { breakpoints: this.breakpoints, exceptionFilters: this.exceptionFilters },
      {
        stopped: (thread) => this.onStopped(run, thread),
        logpoint: (_thread, message, at) => this.sendConsole({ category: 'console', text: `${message}\n`, ...this.logpointAnchor(at) }),
        threadStarted: (thread) => this.sendEvent(new ThreadEvent('started', thread.id)),
        threadExited: (thread) => this.sendEvent(new ThreadEvent('exited', thread.id)),
      },
      start.kind === 'resume' ? start.entryStop : entryStop,
    );
    const gates = new GateDesk(
      {
        opened: (question, scope) => {
          const { type: _type, ...gate } = humanGateMessage(question);
          this.sendCustom('humanGate', { ...gate, threadId: controller.threadFor(scope).id });
          controller.gateOpened(scope, question.id, question.text);
        },
        closed: (gateId) => {
          this.sendCustom('humanGateClosed', { gateId });
          const thread = controller.gateClosed(gateId);
          if (thread && !run.superseded) this.onContinued(run, thread);
        },
      },
    );
    const run: ActiveRun = {
      controller,
      abort,
      history,
      graphState,
      gates,
      startedAt: performance.now(),
      logsRoot: start.kind === 'fresh' ? start.logsRoot : start.directory,
      done: Promise.resolve(),
      superseded: false,
    };
    this.run = run;
    events.on((event) => this.onRunEvent(run, event));
    const interviewer = new ScriptedFirstInterviewer(this.backendChoice?.humanAnswers ?? {}, gates);
    const options = { backend: this.backend as CodergenBackend, interviewer, events, controller, signal: abort.signal, ...runDefaults(args) };
    const launched =
      start.kind === 'fresh'
        ? launchPipelineFile(this.programPath, { ...options, cwd: path.resolve(args.cwd ?? path.dirname(this.programPath)), logsRoot: start.logsRoot, ...(args.params ? { params: args.params } : {}) })
        : resumeRun(start.directory, options);
    run.done = launched.then(
      (result) => this.onRunFinished(run, result),
      (error: unknown) => this.onRunFinished(run, { kind: 'refused', diagnostics: [], reason: `engine error: ${error instanceof Error ? error.message : String(error)}` }),
    );
    return run;
  }

  private async onRunFinished(run: ActiveRun, result: LaunchResult): Promise<void> {
    if (run.superseded) return;
    if (result.kind === 'refused') {
      for (const d of result.diagnostics) this.sendConsole({ category: 'stderr', text: `${formatDiagnostic(this.programPath, d)}\n` });
      this.sendConsole({ category: 'stderr', text: `attractor: ${result.reason}\n` });
      this.sendEvent(new ExitedEvent(2));
      this.sendTerminated();
      return;
    }
    const failure = result.result.status === 'fail' ? classifyFailure({ reason: result.result.failureReason ?? '', ...(result.result.failureKind ? { failureKind: result.result.failureKind } : {}) }, this.exceptionFilters) : undefined;
    if (failure) {
      await run.controller.haltAfterRun(failure);
      // Released by continue or terminate alike; only a run replaced by time travel ends silently.
      if (run.superseded) return;
    }
    this.sendEvent(new ExitedEvent(result.result.status === 'success' ? 0 : 1));
    this.sendTerminated();
  }

  private sendTerminated(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.sendEvent(new TerminatedEvent());
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

  private async supersede(): Promise<ActiveRun | undefined> {
    const run = this.run;
    if (!run) return undefined;
    run.superseded = true;
    await this.stopRun();
    for (const thread of run.controller.allThreads()) if (thread.id !== MAIN_THREAD_ID) this.sendEvent(new ThreadEvent('exited', thread.id));
    return run;
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    if (this.attachment) return this.attachedControl(response, (attachment) => attachment.detach(true));
    this.sendResponse(response);
    await this.stopRun();
  }

  protected override async disconnectRequest(response: DebugProtocol.DisconnectResponse, args: DebugProtocol.DisconnectArguments | undefined): Promise<void> {
    const attachment = this.attachment;
    this.attachment = undefined;
    // Attached, a disconnect detaches: the run goes on on its server unless the client asks to end it.
    if (attachment) await attachment.detach(args?.terminateDebuggee === true).catch((error: unknown) => this.sendConsole({ category: 'stderr', text: `attractor: detaching: ${String(error)}\n` }));
    await this.stopRun();
    this.sendResponse(response);
    // Standalone: the process ends; inline in the extension host this is a no-op.
    this.shutdown();
  }

  protected override async restartRequest(response: DebugProtocol.RestartResponse): Promise<void> {
    if (!this.args || !this.backendChoice) return this.sendErrorResponse(response, { id: 1002, format: 'nothing to restart: the session has not launched' });
    await this.supersede();
    this.terminated = false;
    this.backend = this.backendChoice.create();
    this.sendResponse(response);
    this.startRun({ kind: 'fresh', logsRoot: siblingRunDirectory(this.originalLogsRoot, 'restart') }, this.args.stopOnEntry ? 'entry' : undefined);
  }

  // ---- run events → DAP ----

  private onRunEvent(run: ActiveRun, event: RunEvent): void {
    if (run.superseded) return;
    if (event.type === 'run:start') {
      run.logsRoot = event.logsRoot;
      run.runId = event.runId;
      this.sendCustom('traceHistory', { records: event.history, logsRoot: event.logsRoot });
    }
    if (event.type === 'checkpoint') run.history.noteCheckpoint(event.state);
    if (event.type === 'trace') {
      run.history.noteTrace(event.record);
      this.sendCustom('traceEntry', { record: event.record, logsRoot: run.logsRoot });
    }
    if (event.type === 'human:question') run.gates.noteQuestion(event.question, event.scope);
    if (event.type === 'jump') {
      const hit = classifyFailure(event, this.exceptionFilters);
      if (hit) run.controller.noteException(event.scope, hit);
    }
    if (event.type === 'parallel:end') run.controller.exitBranches(event.scope);
    if (event.type === 'agent') this.progress(run, event.scope, event.nodeId, event.event.event);
    for (const line of consoleLines(event)) this.sendConsole(line);
    if (run.graphState.apply(event)) {
      if (event.type === 'run:end') this.sendGraphState(run);
      else this.scheduleGraphState(() => {
        if (!run.superseded) this.sendGraphState(run);
      });
    }
  }

  /** The whole state is sent at most every GRAPH_STATE_INTERVAL_MS while running, so a long walk costs O(1) per node. */
  private scheduleGraphState(send: () => void): void {
    if (this.graphStateTimer) return;
    this.graphStateTimer = setTimeout(() => {
      this.graphStateTimer = undefined;
      send();
    }, GRAPH_STATE_INTERVAL_MS);
  }

  private progress(run: ActiveRun, scope: WalkScope, nodeId: string, kind: string): void {
    if (!this.clientSupportsProgress) return;
    const id = `llm:${scope.id}:${nodeId}`;
    if (kind === 'prompt:submit') {
      const boundary = run.controller.threadFor(scope).lastNode;
      if (boundary) this.cancellableProgress.set(id, boundary.cancelNode);
      const start = new ProgressStartEvent(id, `LLM call: ${nodeId}`) as DebugProtocol.ProgressStartEvent;
      start.body.cancellable = boundary !== undefined;
      this.sendEvent(start);
    } else if (kind === 'prompt:complete' || kind === 'session:end') {
      this.cancellableProgress.delete(id);
      this.sendEvent(new ProgressEndEvent(id));
    }
  }

  /** Cancelling an LLM call's progress fails that node's attempt; the run goes on routing. */
  protected override cancelRequest(response: DebugProtocol.CancelResponse, args: DebugProtocol.CancelArguments): void {
    const cancel = args.progressId ? this.cancellableProgress.get(args.progressId) : undefined;
    cancel?.('cancelled from the progress notification');
    this.sendResponse(response);
  }

  private sendGraphState(run: ActiveRun): void {
    if (this.graphStateTimer) {
      clearTimeout(this.graphStateTimer);
      this.graphStateTimer = undefined;
    }
    this.sendCustom('graphState', { ...run.graphState.snapshot(), program: this.programPath, logsRoot: run.logsRoot });
  }

  private sendCustom<N extends CustomEventName>(name: N, body: CustomEventBodies[N]): void {
    this.sendEvent(new Event(name, body));
  }

  private sendConsole(line: ConsoleLine): void {
    // VS Code shows an `important` line as a notification too, where nothing else says it is ours.
    const text = line.category === 'important' ? `Attractor: ${line.text}` : line.text;
    const event = new OutputEvent(text, line.category) as DebugProtocol.OutputEvent;
    const location = line.source ?? (line.node ? this.locateNode(line.node.scope, line.node.nodeId) : undefined);
    if (location) {
      event.body.source = this.sourceOf(location.file);
      event.body.line = this.convertDebuggerLineToClient(location.line);
    }
    this.sendEvent(event);
  }

  private onStopped(run: ActiveRun, thread: DebugThread): void {
    if (run.superseded) return;
    this.scopeHandles.reset();
    const stop = thread.stop;
    if (!stop) return;
    run.graphState.setPaused(true, thread.place?.kind === 'ended' ? undefined : thread.place?.boundary.nodeId);
    this.sendGraphState(run);
    const reason = stop.reason === 'human gate' ? HUMAN_GATE_STOP_REASON : stop.reason;
    const event = new StoppedEvent(reason, thread.id, stop.description) as DebugProtocol.StoppedEvent;
    if (stop.description) event.body.description = stop.description;
    if (stop.hitBreakpointIds) event.body.hitBreakpointIds = [...stop.hitBreakpointIds];
    event.body.allThreadsStopped = run.controller.allThreads().length === 1;
    this.sendEvent(event);
  }

  private onContinued(run: ActiveRun, thread: DebugThread): void {
    run.graphState.setPaused(run.controller.allThreads().some((t) => t.isStopped));
    this.sendGraphState(run);
    this.sendEvent(new ContinuedEvent(thread.id, false));
  }

  // ---- execution control ----

  private stoppedThread(threadId: number): DebugThread | undefined {
    const thread = this.run?.controller.thread(threadId);
    return thread?.isStopped ? thread : undefined;
  }

  private resumeThread(response: DebugProtocol.Response, threadId: number, mode: (thread: DebugThread) => StepMode, singleThread: boolean | undefined): void {
    const run = this.run;
    const thread = run?.controller.thread(threadId);
    if (!run || !thread) return this.sendErrorResponse(response, { id: 1003, format: `no thread ${threadId}` });
    // Only an answer moves a waiting gate on; a resume the client took for done would show it running.
    if (thread.place?.kind === 'gate') {
      return this.sendErrorResponse(response, { id: 1015, format: `${thread.place.boundary.nodeId} is waiting for an answer: answer the gate in the graph view or the quick pick`, showUser: true });
    }
    this.scopeHandles.reset();
    run.controller.resume(thread, mode(thread), singleThread === true);
    run.graphState.setPaused(run.controller.allThreads().some((t) => t.isStopped));
    this.sendResponse(response);
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse, args: DebugProtocol.ContinueArguments): void {
    if (this.attachment) return void this.attachedControl(response, (attachment) => attachment.continue());
    const gateWaits = this.run?.controller.allThreads().some((t) => t.place?.kind === 'gate') === true;
    response.body = { allThreadsContinued: args.singleThread !== true && !gateWaits };
    this.resumeThread(response, args.threadId, () => ({ kind: 'run' }), args.singleThread);
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    if (this.attachment) return void this.attachedControl(response, (attachment) => attachment.next());
    this.resumeThread(response, args.threadId, (t) => ({ kind: 'next', depth: t.depth }), args.singleThread);
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    // A server holds the run at node boundaries only: stepping in is stepping to the next one.
    if (this.attachment) return void this.attachedControl(response, (attachment) => attachment.next());
    const thread = this.stoppedThread(args.threadId);
    if (args.targetId !== undefined) {
      const from = thread?.place?.kind === 'edge' ? thread.place.edgeBoundary.from : thread?.lastNode?.nodeId;
      const graph = thread?.lastNode?.graph;
      const edge = graph?.edges[args.targetId];
      if (!thread || !from || !edge || edge.from !== from) return this.sendErrorResponse(response, { id: 1004, format: `step-in target ${args.targetId} is not an outgoing edge of the current node` });
      thread.forcedEdge = { from, index: edge.index };
      return this.resumeThread(response, args.threadId, (t) => ({ kind: 'next', depth: t.depth }), args.singleThread);
    }
    this.resumeThread(response, args.threadId, () => ({ kind: 'stepIn' }), args.singleThread);
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    if (this.attachment) return void this.attachedControl(response, (attachment) => attachment.continue());
    this.resumeThread(response, args.threadId, (t) => (t.depth > 0 ? { kind: 'stepOut', depth: t.depth } : { kind: 'run' }), args.singleThread);
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse, args: DebugProtocol.PauseArguments): void {
    if (this.attachment) return void this.attachedControl(response, (attachment) => attachment.pause());
    const thread = this.run?.controller.thread(args.threadId);
    if (thread) this.run?.controller.pause(thread);
    this.sendResponse(response);
  }

  protected override stepInTargetsRequest(response: DebugProtocol.StepInTargetsResponse, args: DebugProtocol.StepInTargetsArguments): void {
    const ref = this.frameRef(args.frameId);
    const thread = ref?.index === 0 ? ref.thread : undefined;
    const place = thread?.place;
    const node = thread?.lastNode;
    if (!place || !node || place.kind === 'ended') {
      response.body = { targets: [] };
      return this.sendResponse(response);
    }
    const edges = place.kind === 'edge' ? place.edgeBoundary.candidates : node.graph.edges.filter((e) => e.from === node.nodeId);
    response.body = {
      targets: edges.map((edge) => {
        const label = edge.attributes.get('label')?.value;
        const condition = edge.attributes.get('condition')?.value;
        return {
          id: edge.index,
          label: `${edge.from} -> ${edge.to}${label ? ` [${label}]` : ''}${condition ? ` if ${condition}` : ''}`,
          line: this.convertDebuggerLineToClient(this.lineOf(node.graph, edge.range)),
        };
      }),
    };
    this.sendResponse(response);
  }

  // ---- time travel ----

  /** The main walk's node boundary that time travel works from (a sub-pipeline counts as its folder node). */
  private travelAnchor(thread: DebugThread | undefined): { run: ActiveRun; node: NodeBoundary; ran: boolean } | undefined {
    const run = this.run;
    if (!run || !thread || thread.id !== MAIN_THREAD_ID) return undefined;
    const node = thread.lastTopNode;
    if (!node) return undefined;
    // Stopped before the top-level node ran (and not inside its sub-pipeline)?
    const ran = !(thread.place?.kind === 'node' && thread.place.boundary === node);
    return { run, node, ran };
  }

  private async travel(response: DebugProtocol.Response, pick: (anchor: { run: ActiveRun; node: NodeBoundary; ran: boolean }) => Boundary | undefined, reason: string, landing: StopReason): Promise<void> {
    const anchor = this.travelAnchor(this.stoppedThread(MAIN_THREAD_ID));
    if (!anchor) return this.sendErrorResponse(response, { id: 1005, format: 'time travel needs the main thread paused at a node' });
    const boundary = pick(anchor);
    if (!boundary) return this.sendErrorResponse(response, { id: 1006, format: 'there is no earlier node boundary to go back to' });
    const parent = await this.supersede();
    const target = siblingRunDirectory(this.originalLogsRoot, 'branch');
    const parentRoot = parent?.logsRoot ?? this.originalLogsRoot;
    forkRunDirectory(parentRoot, target, boundary, reason);
    const workspace = restoreWorkspaceForBranch(parentRoot, target, boundary.state.cwd, boundary.state.workspaceSnapshot);
    this.sendResponse(response);
    this.sendConsole({ category: 'important', text: `${reason}: continuing from before ${boundary.state.nextNodeId} (step ${boundary.state.step}) in a new branch ${target}\n` });
    if (!workspace.restored) this.sendConsole({ category: 'important', text: `${reason}: the working directory was NOT restored (${workspace.reason}); the files are as the run left them\n` });
    this.startRun({ kind: 'resume', directory: target, entryStop: landing, ...(parent ? { branch: { parent: parent.history, from: boundary } } : {}) });
  }

  protected override async restartFrameRequest(response: DebugProtocol.RestartFrameResponse, args: DebugProtocol.RestartFrameArguments): Promise<void> {
    const ref = this.frameRef(args.frameId);
    if (ref && ref.thread.id !== MAIN_THREAD_ID) return this.sendErrorResponse(response, { id: 1007, format: 'restartFrame works on the main thread (parallel branches are not checkpointed)' });
    await this.travel(response, ({ run, node }) => run.history.at(node.step), 'restart frame', 'restart');
  }

  protected override async stepBackRequest(response: DebugProtocol.StepBackResponse): Promise<void> {
    await this.travel(response, ({ run, node, ran }) => (ran ? run.history.at(node.step) : run.history.before(node.step)), 'step back', 'step');
  }

  protected override async reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse): Promise<void> {
    await this.travel(
      response,
      ({ run, node, ran }) => {
        const upTo = ran ? node.step + 1 : node.step;
        const earlier = run.history.between(-1, upTo);
        return earlier.find((b) => this.wouldBreak(b)) ?? run.history.first();
      },
      'reverse continue',
      'breakpoint',
    );
  }

  /** Whether a breakpoint would stop before the node a boundary runs next (for reverseContinue). */
  private wouldBreak(boundary: Boundary): boolean {
    const file = boundary.state.sourcePath ?? this.programPath;
    const visit = (boundary.state.visits[boundary.state.nextNodeId] ?? 0) + 1;
    return this.breakpoints.peekNode(file, boundary.state.nextNodeId, visit, new RunContext(boundary.state.context));
  }

  // ---- inspection ----

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const attached = this.attachment?.run;
    if (attached) {
      response.body = { threads: [new Thread(MAIN_THREAD_ID, `${attached.graphName ?? 'run'} (${attached.id})`)] };
      return this.sendResponse(response);
    }
    const threads = this.run?.controller.allThreads() ?? [];
    response.body = { threads: threads.length > 0 ? threads.map((t) => new Thread(t.id, t.name)) : [new Thread(MAIN_THREAD_ID, 'main')] };
    this.sendResponse(response);
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    if (this.attachment) {
      const at = this.attachment.location();
      const frames = at ? [{ id: MAIN_THREAD_ID * FRAME_STRIDE, name: at.name, source: this.sourceOf(this.programPath), line: this.convertDebuggerLineToClient(at.line), column: this.convertDebuggerColumnToClient(0) }] : [];
      response.body = { stackFrames: frames, totalFrames: frames.length };
      return this.sendResponse(response);
    }
    const thread = this.run?.controller.thread(args.threadId);
    const place = thread?.place;
    if (!thread || !place) {
      response.body = { stackFrames: [], totalFrames: 0 };
      return this.sendResponse(response);
    }
    const frames: DebugProtocol.StackFrame[] = [];
    const boundary = place.boundary;
    const file = boundary?.graph.sourcePath ?? this.programPath;
    if (place.kind === 'edge') {
      const edge = place.edge;
      frames.push(this.frame(thread, 0, `${edge.from} -> ${edge.to}`, file, this.sources.lineOf(file, edge.range) ?? 0));
    } else if (boundary) {
      const line = this.sources.nodeLine(file, boundary.nodeId) ?? 0;
      const suffix = place.kind === 'node' ? '' : place.kind === 'gate' ? ' (waiting for an answer)' : place.kind === 'ended' ? ' (run ended)' : place.kind === 'turn' ? ` › agent turn ${place.turn}` : ' (finished)';
      frames.push(this.frame(thread, 0, `${boundary.nodeId}${suffix}`, file, line));
    } else {
      frames.push(this.frame(thread, 0, 'run ended', this.programPath, 0));
    }
    const outer = boundary?.scope.frames ?? [];
    for (let i = outer.length - 1; i >= 0; i--) {
      const nodeId = (outer[i] as { nodeId: string }).nodeId;
      const parentFile = i === 0 ? this.programPath : (outer[i - 1]?.sourcePath ?? this.programPath);
      frames.push(this.frame(thread, outer.length - i, nodeId, parentFile, this.sources.nodeLine(parentFile, nodeId) ?? 0));
    }
    response.body = { stackFrames: frames, totalFrames: frames.length };
    this.sendResponse(response);
  }

  private frame(thread: DebugThread, index: number, name: string, file: string, line: number): DebugProtocol.StackFrame {
    return { id: thread.id * FRAME_STRIDE + index, name, source: this.sourceOf(file), line: this.convertDebuggerLineToClient(line), column: this.convertDebuggerColumnToClient(0) };
  }

  private frameRef(frameId: number | undefined): FrameRef | undefined {
    if (frameId === undefined) {
      const thread = this.run?.controller.allThreads().find((t) => t.isStopped);
      return thread ? { thread, index: 0 } : undefined;
    }
    const thread = this.run?.controller.thread(Math.floor(frameId / FRAME_STRIDE));
    return thread ? { thread, index: frameId % FRAME_STRIDE } : undefined;
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    if (this.attachment) {
      const kinds: AttachedScope[] = this.attachment.held ? ['context', 'outcome', 'run'] : [];
      response.body = { scopes: kinds.map((kind) => new Scope(scopeTitles[kind], this.attachedScopes.create(kind), false)) };
      return this.sendResponse(response);
    }
    const frame = this.frameRef(args.frameId);
    const kinds: ScopeKind[] = !frame ? [] : frame.index === 0 ? ['context', 'node', 'outcome', 'files', 'run'] : ['node'];
    response.body = { scopes: kinds.map((kind) => new Scope(scopeTitles[kind], this.scopeHandles.create({ frame: frame as FrameRef, kind }), kind === 'node')) };
    this.sendResponse(response);
  }

  protected override async variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): Promise<void> {
    if (this.attachment) {
      try {
        response.body = { variables: await this.attachedVariables(this.attachment, this.attachedScopes.get(args.variablesReference)) };
      } catch (error) {
        return this.sendErrorResponse(response, { id: 1019, format: `the server did not answer: ${error instanceof Error ? error.message : String(error)}` });
      }
      return this.sendResponse(response);
    }
    const ref = this.scopeHandles.get(args.variablesReference);
    response.body = { variables: ref ? this.variablesOf(ref) : [] };
    this.sendResponse(response);
  }

  private async attachedVariables(attachment: RemoteAttachment, scope: AttachedScope | undefined): Promise<DebugProtocol.Variable[]> {
    const held = attachment.held;
    if (!held) return [];
    switch (scope) {
      case 'context':
        return contextVariables(new RunContext(await attachment.context()));
      case 'outcome':
        return heldOutcomeVariables(held.lastOutcome);
      case 'run':
        return attachedRunVariables(attachment.run, attachment.serverUrl, held);
      case undefined:
        return [];
    }
  }

  private variablesOf(ref: ScopeRef): DebugProtocol.Variable[] {
    const { thread, index } = ref.frame;
    const boundary = thread.place?.boundary;
    if (!boundary) return [];
    switch (ref.kind) {
      case 'context':
        return contextVariables(boundary.context);
      case 'node': {
        if (index === 0) {
          const node = boundary.graph.nodes.get(boundary.nodeId);
          return node ? nodeVariables(node) : [];
        }
        const frames = boundary.scope.frames;
        const depth = frames.length - index;
        const nodeId = frames[depth]?.nodeId;
        const file = depth === 0 ? this.programPath : (frames[depth - 1]?.sourcePath ?? this.programPath);
        const loaded = this.sources.load(file);
        const node = nodeId && loaded.ok ? loaded.graph.nodes.get(nodeId) : undefined;
        return node ? nodeVariables(node) : [];
      }
      case 'outcome':
        return outcomeVariables(thread.place?.kind === 'node-done' ? { nodeId: boundary.nodeId, outcome: thread.place.outcome } : thread.lastOutcome);
      case 'files':
        return fileVariables(this.lastVisitChanges(thread));
      case 'run': {
        const run = this.run;
        const last = thread.lastOutcome && thread.lastOutcome.nodeId === boundary.nodeId ? thread.lastOutcome.outcome : undefined;
        return runVariables(
          {
            ...(run?.runId ? { runId: run.runId } : {}),
            ...(run ? { logsRoot: run.logsRoot } : {}),
            iteration: boundary.iteration,
            step: boundary.step,
            visit: boundary.visit,
            elapsedMs: run ? performance.now() - run.startedAt : 0,
            retries: Math.max(0, (last?.attemptCount ?? 1) - 1),
          },
          boundary.context,
        );
      }
    }
  }

  private lastVisitChanges(thread: DebugThread): VisitChanges {
    const last = thread.lastOutcome;
    if (!last) return { kind: 'none-yet' };
    const store = last.files && this.run ? existingWorkspaceStore(this.run.logsRoot, this.run.logsRoot) : undefined;
    if (!last.files || !store) return { kind: 'not-snapshotted', nodeId: last.nodeId };
    try {
      return { kind: 'changes', nodeId: last.nodeId, iteration: last.iteration, changes: store.changes(last.files.before, last.files.after) };
    } catch {
      return { kind: 'not-snapshotted', nodeId: last.nodeId };
    }
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    const ref = this.scopeHandles.get(args.variablesReference);
    const boundary = ref?.frame.thread.place?.boundary;
    if (!ref || ref.kind !== 'context' || !boundary) return this.sendErrorResponse(response, { id: 1008, format: 'only Context values of a paused node can be changed' });
    const value = parseTypedValue(args.value);
    boundary.context.set(args.name, value);
    response.body = { value: displayValue(value), variablesReference: 0 };
    this.sendResponse(response);
  }

  protected override async evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): Promise<void> {
    const context = this.attachment?.held ? await this.attachment.context().then((values) => new RunContext(values), () => undefined) : this.frameRef(args.frameId)?.thread.place?.boundary?.context;
    if (!context) return this.sendErrorResponse(response, { id: 1009, format: 'evaluate needs a paused node (its context is what expressions read)' });
    const parsed = parseContextExpression(args.expression);
    if (!parsed.ok) return this.sendErrorResponse(response, { id: 1010, format: parsed.message });
    const result = evaluateContextExpression(parsed.expression, context);
    if (args.context === 'hover' && parsed.expression.kind === 'key' && result.value === undefined) {
      return this.sendErrorResponse(response, { id: 1011, format: `${args.expression} is not in the context` });
    }
    response.body = { result: result.display, variablesReference: 0, type: typeof result.value };
    this.sendResponse(response);
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse, args: DebugProtocol.ExceptionInfoArguments): void {
    const exception = this.run?.controller.thread(args.threadId)?.stop?.exception;
    if (!exception) return this.sendErrorResponse(response, { id: 1012, format: `thread ${args.threadId} is not stopped on an exception` });
    response.body = { exceptionId: exception.filter, description: exception.description, breakMode: 'always' };
    this.sendResponse(response);
  }

  // ---- custom requests ----

  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    if (command !== 'answerGate') return super.customRequest(command, response, args);
    const parsed = parseAnswerGateArguments(args);
    if (!parsed.ok) return this.sendErrorResponse(response, { id: 1013, format: parsed.message });
    if (this.attachment) return void this.attachedControl(response, (attachment) => attachment.answer(parsed.value.gateId, parsed.value.answer));
    const result = this.run?.gates.answer(parsed.value.gateId, parsed.value.answer) ?? { ok: false as const, message: 'no run is active' };
    if (!result.ok) return this.sendErrorResponse(response, { id: 1014, format: result.message });
    this.sendResponse(response);
  }

  // ---- helpers ----

  private logpointAnchor(at: LogpointPlace): Pick<ConsoleLine, 'node' | 'source'> {
    if (at.kind === 'node') return { node: { scope: at.boundary.scope, nodeId: at.boundary.nodeId } };
    return { source: { file: at.boundary.graph.sourcePath ?? this.programPath, line: this.lineOf(at.boundary.graph, at.boundary.selected.range) } };
  }

  /** The zero-based line of a range of the running graph, in the file it was read from. */
  private lineOf(graph: Graph, span: SourceSpan): number {
    return this.sources.lineOf(graph.sourcePath ?? this.programPath, span) ?? 0;
  }

  private locateNode(scope: WalkScope, nodeId: string): { file: string; line: number } | undefined {
    const file = scope.frames.at(-1)?.sourcePath ?? this.programPath;
    const line = this.sources.nodeLine(file, nodeId);
    return line === undefined ? undefined : { file, line };
  }

  private sourceOf(file: string): Source {
    return new Source(path.basename(file), this.convertDebuggerPathToClient(file));
  }

  private toDapBreakpoint(status: { id: number; verified: boolean; line?: number; message?: string }, file?: string): DebugProtocol.Breakpoint {
    return {
      id: status.id,
      verified: status.verified,
      ...(status.line !== undefined ? { line: this.convertDebuggerLineToClient(status.line) } : {}),
      ...(status.message ? { message: status.message } : {}),
      ...(file ? { source: this.sourceOf(file) } : {}),
    };
  }
}
