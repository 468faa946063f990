// The one protocol between the Attractor debug adapter and its clients (the extension, the graph
// view, tests): launch arguments plus the custom DAP events and requests. Both sides import it.
import type { TraceRecord } from '../../engine/runtime/events';
import type { FileChange } from '../../engine/runtime/workspace-snapshot';
import type { GraphState } from '../view/graph-state';
import type { GateReply } from '../../engine/runtime/interviewer';
import { parseGateAnswer, type HumanGateMessage } from './webview';
import { namedSandbox, type SandboxRequest, type SandboxSetting } from '../../engine/model/sandbox-setting';

export const DEBUG_TYPE = 'attractor';

/** `launch` request arguments (launch.json). */
export interface AttractorLaunchArguments {
  /** The .dot pipeline to run. */
  readonly program: string;
  /** The run's working directory (tool commands and agents run here); defaults to the program's folder. */
  readonly cwd?: string;
  /** The run directory; defaults to `<cwd>/.attractor-runs/<name>-<timestamp>`. */
  readonly logsRoot?: string;
  readonly params?: Readonly<Record<string, string>>;
  /** `scripted` (with `scripted: FILE`), `llm` (the providers named by the nodes, keys from the environment), or a name an injected backend factory serves. */
  readonly backend?: string;
  readonly scripted?: string;
  /** Who answers human gates: "ask" (the default) asks the person; "script" takes the script's `human` answers first (tests, CI). */
  readonly gateAnswers?: 'ask' | 'script';
  readonly stopOnEntry?: boolean;
  /** A run directory to continue instead of starting a new run (`attractor resume`). */
  readonly resume?: string;
  /** max_parallel of fan-outs that set none (an integer ≥ 1; the engine's default is 4). */
  readonly maxParallel?: number;
  /** How commands are confined (`attractor.sandbox`); a mode named here that bwrap cannot give refuses the launch. */
  readonly sandbox?: SandboxSetting;
}

/** `attach` request arguments (launch.json `"request": "attach"`): follow a run on an `attractor serve` server (or `attractor run --serve`). */
export interface AttractorAttachArguments {
  /** The server: http(s)://host:port, or unix:/path/to.sock. */
  readonly url: string;
  /** The bearer token of a server that requires one; else ATTRACTOR_SERVER_TOKEN. */
  readonly token?: string;
  /** The server's id of the run; absent: the newest run still running. */
  readonly runId?: string;
  /** This machine's copy of the run's .dot file (for breakpoints and the stack); absent: the run's own file when it is here, else a copy of its source. */
  readonly program?: string;
}

/** The environment variable the adapter reads a server's token from when `token` is not given. */
export const SERVER_TOKEN_ENV = 'ATTRACTOR_SERVER_TOKEN';

/** Validates `attach` arguments received over the wire. */
export function parseAttachArguments(value: unknown): { ok: true; value: AttractorAttachArguments } | { ok: false; message: string } {
  const args = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof args.url !== 'string' || args.url === '') return { ok: false, message: 'an attach configuration needs "url": the server\'s address (http://127.0.0.1:8474, or unix:/path/to.sock)' };
  for (const key of ['token', 'runId', 'program'] as const) {
    if (args[key] !== undefined && (typeof args[key] !== 'string' || args[key] === '')) return { ok: false, message: `attach: "${key}" must be a non-empty string` };
  }
  return { ok: true, value: args as unknown as AttractorAttachArguments };
}

/** The engine's run-level defaults that launch arguments carry. */
export function runDefaults(args: AttractorLaunchArguments): { readonly defaultMaxParallel?: number; readonly sandbox?: SandboxRequest } {
  return { ...(args.maxParallel === undefined ? {} : { defaultMaxParallel: args.maxParallel }), ...(args.sandbox === undefined ? {} : { sandbox: namedSandbox(args.sandbox) }) };
}

/** Exception breakpoint filter ids (`setExceptionBreakpoints`). */
export const exceptionFilters = [
  { filter: 'node_failed', label: 'Node failed', description: 'Stop after a node finishes with status fail.' },
  { filter: 'retries_exhausted', label: 'Retries exhausted', description: 'Stop after a node used up its retry budget without succeeding.' },
  { filter: 'goal_gate_unsatisfied', label: 'Goal gate unsatisfied', description: 'Stop when the exit finds a goal gate unsatisfied.' },
  { filter: 'must_write_violated', label: 'must_write violated', description: 'Stop when a node misses its must_write artifact contract.' },
  { filter: 'no_matching_edge', label: 'No matching edge', description: 'Stop when no outgoing edge matches and the run would end failed.' },
  { filter: 'human_gate', label: 'Human gate reached', description: 'Stop before a human gate (hexagon) asks its question.' },
] as const;
export type ExceptionFilterId = (typeof exceptionFilters)[number]['filter'];

/** The stop reasons this adapter reports besides DAP's own (`breakpoint`, `step`, `pause`, `entry`, `exception`). */
export const HUMAN_GATE_STOP_REASON = 'human gate';

// ---- custom events ----

/** Body of the `humanGate` event: a gate waits for an answer (send `answerGate`); the graph view's question plus the thread it stops. */
export type HumanGateEventBody = Omit<HumanGateMessage, 'type'> & { readonly threadId: number };

/** Body of the `humanGateClosed` event: the gate was answered, timed out or the run stopped. */
interface HumanGateClosedEventBody {
  readonly gateId: string;
}

export type GraphStateEventBody = GraphState & {
  /** The program (.dot) whose nodes `nodes` and `takenEdges` refer to. */
  readonly program: string;
  /** The run directory the state belongs to (a time-travel branch has its own). */
  readonly logsRoot?: string;
};

/** Body of the `traceEntry` event: one trace.jsonl record as the engine wrote it. */
export interface TraceEntryEventBody {
  readonly record: TraceRecord;
  readonly logsRoot: string;
}

/** Body of the `traceHistory` event, sent as a run starts: the records its run directory already holds (a resume's history; none for a fresh run). The trace starts over from them. */
interface TraceHistoryEventBody {
  readonly records: readonly TraceRecord[];
  readonly logsRoot: string;
}

/**
 * Body of `travelRefused`, sent with the error a time-travel request (stepBack, reverseContinue,
 * restartFrame) answers when the working directory holds changes the run did not make: nothing was
 * touched. The same request with `discardChanges: true` in its arguments goes back anyway.
 */
export interface TravelRefusedEventBody {
  readonly command: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly cwd: string;
  readonly changes: readonly FileChange[];
}

/** Body of `workspaceRestored`: time travel put the working directory back; `branch`'s restore.json keeps what it replaced (`attractor undo`). */
interface WorkspaceRestoredEventBody {
  readonly branch: string;
  readonly cwd: string;
  /** How many changes the run did not make were discarded (with `discardChanges`). */
  readonly discarded: number;
  /** Paths past the snapshot budget, in no snapshot: left as they were (a directory ends in '/'). */
  readonly overBudget: readonly string[];
}

/** Set in a time-travel request's arguments to go back over changes the run did not make. */
export const DISCARD_CHANGES_ARGUMENT = 'discardChanges';

export interface CustomEventBodies {
  readonly graphState: GraphStateEventBody;
  readonly traceHistory: TraceHistoryEventBody;
  readonly traceEntry: TraceEntryEventBody;
  readonly humanGate: HumanGateEventBody;
  readonly humanGateClosed: HumanGateClosedEventBody;
  readonly travelRefused: TravelRefusedEventBody;
  readonly workspaceRestored: WorkspaceRestoredEventBody;
}
export type CustomEventName = keyof CustomEventBodies;

// ---- custom requests ----

/** Arguments of the `answerGate` request. */
export interface AnswerGateArguments {
  readonly gateId: string;
  readonly answer: GateReply;
}

// POSIX or Windows (drive or UNC); this module is shared with hosts that have no node:path.
const ABSOLUTE_PATH = /^(?:\/|[A-Za-z]:[\\/]|\\\\)/;

/** Validates `answerGate` arguments received over the wire; returns a message when they are malformed. */
export function parseAnswerGateArguments(value: unknown): { ok: true; value: AnswerGateArguments } | { ok: false; message: string } {
  if (typeof value !== 'object' || value === null) return { ok: false, message: 'answerGate expects {gateId, answer}' };
  const { gateId, answer } = value as { gateId?: unknown; answer?: unknown };
  if (typeof gateId !== 'string' || gateId === '') return { ok: false, message: 'answerGate: gateId must be a non-empty string' };
  const parsed = parseGateAnswer(answer, 'answer');
  if (!parsed.ok) return { ok: false, message: `answerGate: ${parsed.error} (an answer is {kind:"option", choice}, {kind:"freeform", text} or {kind:"skipped"}, the first two with optional attachments)` };
  if (parsed.value.kind !== 'skipped' && parsed.value.attachments?.some((file) => !ABSOLUTE_PATH.test(file))) {
    return { ok: false, message: 'answerGate: attachments must be a list of absolute file paths' };
  }
  return { ok: true, value: { gateId, answer: parsed.value } };
}
