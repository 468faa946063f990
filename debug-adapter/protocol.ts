// The one protocol between the Attractor debug adapter and its clients (the extension, the graph
// view, tests): launch arguments plus the custom DAP events and requests. Both sides import it.
import type { TraceRecord } from '../engine/runtime/events';
import type { GraphState } from '../webview/graph-state';
import type { HumanGateMessage } from '../webview/protocol';

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
  readonly stopOnEntry?: boolean;
  /** A run directory to continue instead of starting a new run (`attractor resume`). */
  readonly resume?: string;
  /** max_parallel of fan-outs that set none (an integer ≥ 1; the engine's default is 4). */
  readonly maxParallel?: number;
}

/** The engine's run-level defaults that launch arguments carry. */
export function runDefaults(args: AttractorLaunchArguments): { readonly defaultMaxParallel?: number } {
  return args.maxParallel === undefined ? {} : { defaultMaxParallel: args.maxParallel };
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

export interface CustomEventBodies {
  readonly graphState: GraphStateEventBody;
  readonly traceEntry: TraceEntryEventBody;
  readonly humanGate: HumanGateEventBody;
  readonly humanGateClosed: HumanGateClosedEventBody;
}
export type CustomEventName = keyof CustomEventBodies;

// ---- custom requests ----

export type GateAnswer = { readonly kind: 'option'; readonly key: string } | { readonly kind: 'freeform'; readonly text: string } | { readonly kind: 'skip' };

/** Arguments of the `answerGate` request. */
export interface AnswerGateArguments {
  readonly gateId: string;
  readonly answer: GateAnswer;
}

/** Validates `answerGate` arguments received over the wire; returns a message when they are malformed. */
export function parseAnswerGateArguments(value: unknown): { ok: true; value: AnswerGateArguments } | { ok: false; message: string } {
  if (typeof value !== 'object' || value === null) return { ok: false, message: 'answerGate expects {gateId, answer}' };
  const { gateId, answer } = value as { gateId?: unknown; answer?: unknown };
  if (typeof gateId !== 'string' || gateId === '') return { ok: false, message: 'answerGate: gateId must be a non-empty string' };
  if (typeof answer !== 'object' || answer === null) return { ok: false, message: 'answerGate: answer must be an object' };
  const { kind, key, text } = answer as { kind?: unknown; key?: unknown; text?: unknown };
  if (kind === 'option' && typeof key === 'string') return { ok: true, value: { gateId, answer: { kind, key } } };
  if (kind === 'freeform' && typeof text === 'string') return { ok: true, value: { gateId, answer: { kind, text } } };
  if (kind === 'skip') return { ok: true, value: { gateId, answer: { kind } } };
  return { ok: false, message: 'answerGate: answer must be {kind:"option", key}, {kind:"freeform", text} or {kind:"skip"}' };
}
