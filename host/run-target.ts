// The run a debug session drives, in vscode-mock-debug's shape: a runtime that takes requests and
// emits plain events, which the session (debug-adapter/session.ts) only translates to and from DAP.
// Two implement it: a run in this process (debug-adapter/local-target.ts) and a run on an
// `attractor serve` server (debug-adapter/remote-target.ts), so the session never asks which it has.
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { RunContext } from '../engine/runtime/context';
import type { WalkScope } from '../engine/runtime/events';
import type { GateReply } from '../engine/runtime/interviewer';
import type { CustomEventBodies, CustomEventName, ExceptionFilterId } from './protocol/debug';

/** One Debug Console line, tied to a node's line when it concerns one. */
export interface ConsoleLine {
  readonly category: 'console' | 'stdout' | 'stderr' | 'important';
  readonly text: string;
  readonly node?: { readonly scope: WalkScope; readonly nodeId: string };
  /** A line no node anchors (an edge statement); zero-based. */
  readonly source?: { readonly file: string; readonly line: number };
}

/** A thread stopped (or a run held): what the client is told. */
interface TargetStop {
  readonly threadId: number;
  /** DAP's reason (`breakpoint`, `step`, …) or the adapter's own (`human gate`). */
  readonly reason: string;
  readonly text?: string;
  readonly description?: string;
  readonly hitBreakpointIds?: readonly number[];
  readonly allThreadsStopped: boolean;
}

/** A stack frame; `line` is zero-based in `file`. */
export interface TargetFrame {
  readonly id: number;
  readonly name: string;
  readonly file: string;
  readonly line: number;
}

/** An edge a step-in can force out of the current node; `line` is zero-based. */
export interface StepInTarget {
  readonly id: number;
  readonly label: string;
  readonly line: number;
}

/** How a control request went: its response's body, and what follows once the client has the response (a new run starts only then). */
export interface Carried<Body = never> {
  readonly body?: Body;
  readonly after?: () => void;
}

/** A control request is carried out at once (a run here) or after a round trip (a run on a server). */
export type Control<Body = never> = Carried<Body> | void | Promise<Carried<Body> | void>;

/** A request the target cannot carry out: the adapter's error id, and whether the user should see the message. */
export class TargetRefusal extends Error {
  constructor(
    readonly id: number,
    message: string,
    readonly showUser = false,
  ) {
    super(message);
  }
}

/** A time-travel request as the client sent it: its refusal names it, and its arguments may say `discardChanges`. */
export interface TravelRequest {
  readonly command: string;
  readonly arguments: unknown;
}

/** What a run target tells the session, as it happens. */
export interface RunTargetEvents {
  stopped(stop: TargetStop): void;
  continued(threadId: number, allThreadsContinued: boolean): void;
  thread(reason: 'started' | 'exited', threadId: number): void;
  output(line: ConsoleLine): void;
  /** What the graph view shows and asks: graph state, trace entries, human gates asked and closed. */
  view<N extends CustomEventName>(name: N, body: CustomEventBodies[N]): void;
  progressStart(id: string, title: string, cancellable: boolean): void;
  progressEnd(id: string): void;
  /** The run is over (`exitCode`), or the target lost it (undefined): the session ends. */
  ended(exitCode: number | undefined): void;
}

/** The requests a debug session makes of the run it debugs. Refusals throw (or reject with) a TargetRefusal. */
export interface RunTarget {
  threads(): readonly { readonly id: number; readonly name: string }[];
  stack(threadId: number): readonly TargetFrame[];
  scopes(frameId: number): readonly DebugProtocol.Scope[];
  variables(reference: number): Promise<DebugProtocol.Variable[]>;
  /** Changes a Context value of a paused node; returns how the new value displays. */
  setVariable(reference: number, name: string, value: string): string;
  /** The context expressions read: the paused frame's (or the held run's). */
  context(frameId: number | undefined): Promise<RunContext | undefined>;
  exception(threadId: number): { readonly filter: ExceptionFilterId; readonly description: string } | undefined;
  stepInTargets(frameId: number): readonly StepInTarget[];
  /** The breakpoint book changed (the session holds it): a server must hold the run elsewhere. */
  breakpointsChanged(): void;

  continue(threadId: number, singleThread: boolean): Control<{ readonly allThreadsContinued: boolean }>;
  next(threadId: number, singleThread: boolean): Control;
  stepIn(threadId: number, targetId: number | undefined, singleThread: boolean): Control;
  stepOut(threadId: number, singleThread: boolean): Control;
  pause(threadId: number): Control;
  /** A person's answer to human gate `gateId`. */
  answer(gateId: string, reply: GateReply): Control;
  /** Cancelling an LLM call's progress fails that node's attempt. */
  cancelProgress(progressId: string): void;
  restart(): Control;
  /** Time travel: back to a node boundary of the main walk, continued in a new branch run. */
  restartFrame(frameId: number | undefined, request: TravelRequest): Control;
  stepBack(request: TravelRequest): Control;
  reverseContinue(request: TravelRequest): Control;
  terminate(): Control;
  /** The client leaves: a run here stops; a run on a server goes on unless `terminateDebuggee`. */
  disconnect(terminateDebuggee: boolean): Promise<void>;
}
