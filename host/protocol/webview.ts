// The one message protocol between the extension and the graph webview. Both sides import these
// types; each side validates what it receives with the checks below and never trusts the other.
import { stageStatuses } from '../../engine/model/stage-status';
import { runStatusWordList } from '../../engine/runtime/run-status';
import type { GateReply } from '../../engine/runtime/interviewer';
import { questionTypeValues } from '../../engine/model/question-types';
import { boolean, count, dictionary, finiteNumber, list, nullable, object, oneOf, orUnknown, tagged, text, type Check, type CheckResult, type Infer } from './guards';

const id = text(10_000);
const label = text(100_000);

/** A zero-based LSP-style range (line, UTF-16 character), as `vscode.Range` takes it. */
const wirePosition = object({ line: count, character: count });
const wireRange = object({ start: wirePosition, end: wirePosition });
export type WireRange = Infer<typeof wireRange>;

const nodeRunStatuses = [...stageStatuses, 'running'] as const;
export type NodeRunStatus = (typeof nodeRunStatuses)[number];
/** The run as the graph view shows it: in the words people read (run-status.ts), before it starts and while it is held. */
const runStatuses = ['idle', 'paused', ...runStatusWordList] as const;
export type RunStatus = (typeof runStatuses)[number];
export const layoutEngines = ['dot', 'neato', 'fdp', 'sfdp', 'circo', 'twopi', 'osage'] as const;
export type LayoutEngine = (typeof layoutEngines)[number];

const nodeRunState = object({ status: oneOf(nodeRunStatuses), visits: count, iteration: count }, { lastAttempt: count });
export type NodeRunState = Infer<typeof nodeRunState>;
const takenEdge = object({ index: count, status: oneOf(stageStatuses) }, { traversals: count });
export type TakenEdge = Infer<typeof takenEdge>;

/** One `trace.jsonl` record (ledger: trace.jsonl descent curve), field names as the file spells them. */
export const traceEntry = object(
  {
    iteration: count,
    node_id: id,
    status: oneOf(stageStatuses),
    duration_ms: finiteNumber,
    ts: text(100),
    is_explicit: boolean,
  },
  {
    preferred_label: label,
    attempt: count,
    /** The visit's number within its iteration when not the first. */
    visit: count,
    input_tokens: orUnknown(count),
    output_tokens: orUnknown(count),
    cost_usd: orUnknown(finiteNumber),
    llm_requests: count,
    /** The parallel branch or sub-pipeline the visit ran in; absent on the main walk. */
    scope: id,
    failure_reason: label,
    /** The edge the walk took out of the visit. */
    edge: object({ index: count, from: id, to: id }),
    /** Set when the debugger forced the route out of this node. */
    forced_edge: object({ from: id, to: id }),
  },
);
export type TraceEntry = Infer<typeof traceEntry>;

const gateOption = object({ key: text(100), label, to: id });

export const fileChangeKind = oneOf(['added', 'changed', 'deleted'] as const);
export const fileChange = object({ kind: fileChangeKind, path: text(10_000) });
export type WireFileChange = Infer<typeof fileChange>;

/** An artifact a visit stored (canonical §5.5): where it is, how large, and the start of its value. */
const visitArtifact = object({ id: text(200), name: text(10_000), sizeBytes: count, path: text(10_000), preview: text(100_000) });
export type WireArtifact = Infer<typeof visitArtifact>;

/**
 * The files of one visit (`visit`: the K-th of its node in the iteration, absent for the first);
 * a missing file is absent rather than empty. `fileChanges`: what the visit did to the
 * workspace, absent when it was not snapshotted. `artifacts`: what it put in the artifact store.
 */
export const visitFiles = object({ iteration: count, nodeId: id }, { visit: count, prompt: text(), response: text(), status: text(), fileChanges: list(fileChange, 100_000), artifacts: list(visitArtifact, 1000) });

/** The run as the graph view draws it (the graphState message; GET /pipelines/{id}/view): statuses, the active node, the edges taken. */
export const runView = object({ runStatus: oneOf(runStatuses), iteration: count, nodes: dictionary(nodeRunState), takenEdges: list(takenEdge) }, { activeNode: nullable(id), currentEdge: nullable(count) });

const extensionMessages = {
  document: object({ uri: text(10_000), version: count, text: text() }),
  graphState: runView,
  /** `replace` starts over (a new run, or a finished run opened from disk); otherwise entries append. */
  traceEntries: object({ entries: list(traceEntry), replace: boolean }),
  visitArtifacts: visitFiles,
  humanGate: object({ gateId: id, question: label, options: list(gateOption, 1000), freeform: boolean }, { nodeId: id, defaultChoice: label, timeoutMs: count, questionType: oneOf(questionTypeValues) }),
  humanGateClosed: object({ gateId: id }),
  /** Files the person picked (in the extension's open dialog) to attach to a gate's answer. */
  gateAttachments: object({ gateId: id, files: list(text(10_000), 100) }),
  selectNode: object({ nodeId: nullable(id) }),
  breakpoints: object({ nodes: list(id), edges: list(count) }),
  settings: object({ layoutEngine: oneOf(layoutEngines) }),
};

const breakpointTarget = tagged({ node: object({ nodeId: id, range: wireRange }), edge: object({ edgeIndex: count, range: wireRange }) }, 'kind');
/** The engine's GateReply on the wire (the `answerGate` request of the debug adapter takes the same). */
// Attachments: absolute paths of files the person attached to the answer (ledger §19).
const attachments = { attachments: list(text(10_000), 100) };
const gateAnswer: Check<GateReply> = tagged({ option: object({ choice: text(100) }, attachments), freeform: object({ text: text(100_000) }, attachments), skipped: object({}) }, 'kind');

const webviewMessages = {
  ready: object({}),
  revealNode: object({ uri: text(10_000), nodeId: id, range: wireRange }),
  revealEdge: object({ uri: text(10_000), edgeIndex: count, range: wireRange }),
  /** A position without a node, e.g. the location of a syntax error. */
  revealRange: object({ uri: text(10_000), range: wireRange }),
  toggleBreakpoint: object({ uri: text(10_000), target: breakpointTarget }),
  answerGate: object({ gateId: id, answer: gateAnswer }),
  /** Asks the extension for files to attach to a gate's answer (a webview cannot read paths). */
  pickAttachments: object({ gateId: id }),
  requestVisit: object({ iteration: count, nodeId: id }, { visit: count }),
  /** Open one file of a visit in the diff editor: the workspace before ↔ after that visit. */
  openFileDiff: object({ iteration: count, nodeId: id, path: text(10_000) }, { visit: count }),
  /** Re-run a finished run from before this visit: a new branch run with the state and workspace files of then. */
  rerunFrom: object({ iteration: count, nodeId: id }, { visit: count }),
  openRun: object({}),
  /** SVG as markup, PNG as a `data:image/png;base64,` URL. */
  exportImage: object({ format: oneOf(['svg', 'png'] as const), data: text() }),
  copy: object({ text: text() }),
  /** The webview rejected a message; the extension logs it (the message itself is never echoed). */
  protocolError: object({ error: text(2_000) }),
};

const extensionToWebview = tagged(extensionMessages);
const webviewToExtension = tagged(webviewMessages);

export type ExtensionToWebviewMessage = Infer<typeof extensionToWebview>;
export type WebviewToExtensionMessage = Infer<typeof webviewToExtension>;
type MessageOf<M extends { type: string }, T extends M['type']> = Extract<M, { type: T }>;
export type GraphStateMessage = MessageOf<ExtensionToWebviewMessage, 'graphState'>;
export type HumanGateMessage = MessageOf<ExtensionToWebviewMessage, 'humanGate'>;
export type VisitArtifactsMessage = MessageOf<ExtensionToWebviewMessage, 'visitArtifacts'>;

/** Validates a message the webview received from the extension. */
export function parseExtensionMessage(value: unknown): CheckResult<ExtensionToWebviewMessage> {
  return extensionToWebview(value, '');
}

/** Validates a gate answer received over any wire (the webview, the `answerGate` request). */
export function parseGateAnswer(value: unknown, path: string): CheckResult<GateReply> {
  return gateAnswer(value, path);
}

/** Validates a message the extension received from the webview. */
export function parseWebviewMessage(value: unknown): CheckResult<WebviewToExtensionMessage> {
  return webviewToExtension(value, '');
}
