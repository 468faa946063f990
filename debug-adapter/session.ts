import path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { BreakpointEvent, CapabilitiesEvent, ContinuedEvent, DebugSession, Event, ExitedEvent, InitializedEvent, OutputEvent, ProgressEndEvent, ProgressStartEvent, Source, StoppedEvent, TerminatedEvent, ThreadEvent } from '@vscode/debugadapter';
import type { WalkScope } from '../engine/runtime/events';
import type { BackendFactory } from '../host/backends';
import type { AttractorLaunchArguments, ExceptionFilterId } from '../host/protocol/debug';
import { SERVER_TOKEN_ENV, exceptionFilters, parseAnswerGateArguments, parseAttachArguments } from '../host/protocol/debug';
import type { Carried, ConsoleLine, Control, RunTarget, RunTargetEvents } from '../host/run-target';
import { TargetRefusal } from '../host/run-target';
import { SourceCatalog } from '../host/source-catalog';
import { BreakpointBook } from './breakpoints';
import { evaluateContextExpression, parseContextExpression } from './context-expression';
import { LocalRunTarget } from './local-target';
import { NOT_WHEN_ATTACHED, RemoteRunTarget } from './remote-target';

export interface AttractorDebugSessionOptions {
  /** Serves provider backends (`backend: "openai"` ...); without it only `scripted` and `llm` run. */
  readonly backendFactory?: BackendFactory;
}

/**
 * The Attractor debug adapter: translates between DAP and the run it debugs (a RunTarget: a run in
 * this process, or one on an `attractor serve` server that `attach` follows). It holds no pipeline
 * semantics and never asks which run it has. The same class runs inline in the extension host and
 * standalone over stdio (main.ts).
 */
export class AttractorDebugSession extends DebugSession {
  private readonly sources = new SourceCatalog();
  private readonly breakpoints = new BreakpointBook(this.sources);
  private readonly exceptionFilters = new Set<ExceptionFilterId>();
  private clientSupportsProgress = false;
  private configured!: () => void;
  private readonly configurationDone = new Promise<void>((resolve) => (this.configured = resolve));
  private programPath = '';
  /** The run in this process that `launch` starts (before any request, an idle one answers). */
  private readonly local: LocalRunTarget;
  /** The run requests go to: the local one, or the run on a server that `attach` follows. */
  private target: RunTarget;

  constructor(options: AttractorDebugSessionOptions | boolean = {}) {
    super();
    this.setDebuggerLinesStartAt1(false);
    this.setDebuggerColumnsStartAt1(false);
    const backendFactory = typeof options === 'object' ? options.backendFactory : undefined;
    this.local = new LocalRunTarget({ breakpoints: this.breakpoints, exceptionFilters: this.exceptionFilters, sources: this.sources, backendFactory }, this.targetEvents);
    this.target = this.local;
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
    this.target.breakpointsChanged();
  }

  protected override setFunctionBreakPointsRequest(response: DebugProtocol.SetFunctionBreakpointsResponse, args: DebugProtocol.SetFunctionBreakpointsArguments): void {
    const statuses = this.breakpoints.setFunctionBreakpoints(
      args.breakpoints.map((bp) => ({ name: bp.name, ...(bp.condition !== undefined ? { condition: bp.condition } : {}), ...(bp.hitCondition !== undefined ? { hitCondition: bp.hitCondition } : {}) })),
    );
    response.body = { breakpoints: statuses.map((s) => this.toDapBreakpoint(s)) };
    this.sendResponse(response);
    this.target.breakpointsChanged();
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

  // ---- launch and attach ----

  protected override async launchRequest(response: DebugProtocol.LaunchResponse, rawArgs: DebugProtocol.LaunchRequestArguments): Promise<void> {
    const prepared = this.local.prepare(rawArgs as DebugProtocol.LaunchRequestArguments & AttractorLaunchArguments);
    if (!prepared.ok) return this.sendErrorResponse(response, { id: 1001, format: prepared.message, showUser: true });
    this.bindProgram(prepared.program);
    await this.configurationDone;
    this.sendResponse(response);
    this.local.start();
  }

  protected override async attachRequest(response: DebugProtocol.AttachResponse, rawArgs: DebugProtocol.AttachRequestArguments): Promise<void> {
    const parsed = parseAttachArguments(rawArgs);
    if (!parsed.ok) return this.sendErrorResponse(response, { id: 1016, format: parsed.message, showUser: true });
    const args = parsed.value;
    const refused = (error: unknown) => this.sendErrorResponse(response, { id: 1017, format: `attach to ${args.url}: ${error instanceof Error ? error.message : String(error)}`, showUser: true });
    // `initialize` cannot know it will be an attach: take back what only a launch can do.
    this.sendEvent(new CapabilitiesEvent(NOT_WHEN_ATTACHED));
    let remote: RemoteRunTarget;
    try {
      remote = await RemoteRunTarget.connect(args, args.token ?? process.env[SERVER_TOKEN_ENV], { breakpoints: this.breakpoints, sources: this.sources }, this.targetEvents);
    } catch (error) {
      return refused(error);
    }
    this.bindProgram(remote.program);
    this.target = remote;
    await this.configurationDone;
    try {
      await remote.start();
    } catch (error) {
      this.target = this.local;
      return refused(error);
    }
    this.sendResponse(response);
    this.sendConsole({ category: 'important', text: `attached to run ${remote.run.id} on ${remote.serverUrl}; disconnecting leaves it running\n` });
  }

  /** Breakpoints set before the program was known may bind now. */
  private bindProgram(program: string): void {
    this.programPath = program;
    this.sources.invalidate(program);
    for (const status of this.breakpoints.rebind(program)) this.sendEvent(new BreakpointEvent('changed', this.toDapBreakpoint(status, program)));
    for (const status of this.breakpoints.setProgram(program)) this.sendEvent(new BreakpointEvent('changed', this.toDapBreakpoint(status)));
  }

  // ---- lifecycle ----

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    return this.carry(response, () => this.target.terminate());
  }

  protected override async disconnectRequest(response: DebugProtocol.DisconnectResponse, args: DebugProtocol.DisconnectArguments | undefined): Promise<void> {
    await this.target.disconnect(args?.terminateDebuggee === true);
    this.sendResponse(response);
    // Standalone: the process ends; inline in the extension host this is a no-op.
    this.shutdown();
  }

  protected override restartRequest(response: DebugProtocol.RestartResponse): Promise<void> {
    return this.carry(response, () => this.target.restart());
  }

  // ---- execution control ----

  protected override continueRequest(response: DebugProtocol.ContinueResponse, args: DebugProtocol.ContinueArguments): Promise<void> {
    return this.carry(response, () => this.target.continue(args.threadId, args.singleThread === true));
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): Promise<void> {
    return this.carry(response, () => this.target.next(args.threadId, args.singleThread === true));
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): Promise<void> {
    return this.carry(response, () => this.target.stepIn(args.threadId, args.targetId, args.singleThread === true));
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): Promise<void> {
    return this.carry(response, () => this.target.stepOut(args.threadId, args.singleThread === true));
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse, args: DebugProtocol.PauseArguments): Promise<void> {
    return this.carry(response, () => this.target.pause(args.threadId));
  }

  protected override restartFrameRequest(response: DebugProtocol.RestartFrameResponse, args: DebugProtocol.RestartFrameArguments): Promise<void> {
    return this.carry(response, () => this.target.restartFrame(args.frameId, { command: response.command, arguments: args }));
  }

  protected override stepBackRequest(response: DebugProtocol.StepBackResponse, args: DebugProtocol.StepBackArguments): Promise<void> {
    return this.carry(response, () => this.target.stepBack({ command: response.command, arguments: args }));
  }

  protected override reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse, args: DebugProtocol.ReverseContinueArguments): Promise<void> {
    return this.carry(response, () => this.target.reverseContinue({ command: response.command, arguments: args }));
  }

  /** Cancelling an LLM call's progress fails that node's attempt; the run goes on routing. */
  protected override cancelRequest(response: DebugProtocol.CancelResponse, args: DebugProtocol.CancelArguments): void {
    if (args.progressId) this.target.cancelProgress(args.progressId);
    this.sendResponse(response);
  }

  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    if (command !== 'answerGate') return super.customRequest(command, response, args);
    const parsed = parseAnswerGateArguments(args);
    if (!parsed.ok) return this.sendErrorResponse(response, { id: 1013, format: parsed.message });
    void this.carry(response, () => this.target.answer(parsed.value.gateId, parsed.value.answer));
  }

  /**
   * Carries out a control request: answered at once when the target acts at once (before the run it
   * released moves on), else once the target is done; `after` runs once it is answered.
   */
  private carry<Body>(response: DebugProtocol.Response, act: () => Control<Body>): Promise<void> {
    const answer = (carried: Carried<Body> | void): void => {
      if (carried?.body !== undefined) response.body = carried.body;
      this.sendResponse(response);
      carried?.after?.();
    };
    try {
      const result = act();
      if (!(result instanceof Promise)) return Promise.resolve(answer(result));
      return result.then(answer, (error: unknown) => this.refuse(response, error));
    } catch (error) {
      return Promise.resolve(this.refuse(response, error));
    }
  }

  /** A refusal with its id; anything else that went wrong (a run directory that cannot be written) is answered too, never left to end the adapter. */
  private refuse(response: DebugProtocol.Response, error: unknown): void {
    if (error instanceof TargetRefusal) return this.sendErrorResponse(response, { id: error.id, format: error.message, ...(error.showUser ? { showUser: true } : {}) });
    this.sendErrorResponse(response, { id: 1020, format: `${response.command} failed: ${error instanceof Error ? error.message : String(error)}`, showUser: true });
  }

  // ---- inspection ----

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = { threads: this.target.threads().map((t) => ({ id: t.id, name: t.name })) };
    this.sendResponse(response);
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    const frames = this.target.stack(args.threadId).map((frame) => ({ id: frame.id, name: frame.name, source: this.sourceOf(frame.file), line: this.convertDebuggerLineToClient(frame.line), column: this.convertDebuggerColumnToClient(0) }));
    response.body = { stackFrames: frames, totalFrames: frames.length };
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    response.body = { scopes: [...this.target.scopes(args.frameId)] };
    this.sendResponse(response);
  }

  protected override async variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): Promise<void> {
    try {
      response.body = { variables: await this.target.variables(args.variablesReference) };
    } catch (error) {
      return this.refuse(response, error);
    }
    this.sendResponse(response);
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    try {
      response.body = { value: this.target.setVariable(args.variablesReference, args.name, args.value), variablesReference: 0 };
    } catch (error) {
      return this.refuse(response, error);
    }
    this.sendResponse(response);
  }

  protected override async evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): Promise<void> {
    const context = await this.target.context(args.frameId);
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
    const exception = this.target.exception(args.threadId);
    if (!exception) return this.sendErrorResponse(response, { id: 1012, format: `thread ${args.threadId} is not stopped on an exception` });
    response.body = { exceptionId: exception.filter, description: exception.description, breakMode: 'always' };
    this.sendResponse(response);
  }

  protected override stepInTargetsRequest(response: DebugProtocol.StepInTargetsResponse, args: DebugProtocol.StepInTargetsArguments): void {
    response.body = { targets: this.target.stepInTargets(args.frameId).map((target) => ({ id: target.id, label: target.label, line: this.convertDebuggerLineToClient(target.line) })) };
    this.sendResponse(response);
  }

  // ---- the target's events → DAP ----

  private readonly targetEvents: RunTargetEvents = {
    stopped: (stop) => {
      const event = new StoppedEvent(stop.reason, stop.threadId, stop.text) as DebugProtocol.StoppedEvent;
      if (stop.description) event.body.description = stop.description;
      if (stop.hitBreakpointIds) event.body.hitBreakpointIds = [...stop.hitBreakpointIds];
      event.body.allThreadsStopped = stop.allThreadsStopped;
      this.sendEvent(event);
    },
    continued: (threadId, allThreadsContinued) => this.sendEvent(new ContinuedEvent(threadId, allThreadsContinued)),
    thread: (reason, threadId) => this.sendEvent(new ThreadEvent(reason, threadId)),
    output: (line) => this.sendConsole(line),
    view: (name, body) => this.sendEvent(new Event(name, body)),
    progressStart: (id, title, cancellable) => {
      if (!this.clientSupportsProgress) return;
      const start = new ProgressStartEvent(id, title) as DebugProtocol.ProgressStartEvent;
      start.body.cancellable = cancellable;
      this.sendEvent(start);
    },
    progressEnd: (id) => {
      if (this.clientSupportsProgress) this.sendEvent(new ProgressEndEvent(id));
    },
    ended: (exitCode) => {
      if (exitCode !== undefined) this.sendEvent(new ExitedEvent(exitCode));
      this.sendEvent(new TerminatedEvent());
    },
  };

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

  // ---- helpers ----

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
