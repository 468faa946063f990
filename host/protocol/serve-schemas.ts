// What the routes of `attractor serve` take and answer, as checks: the server validates request
// bodies with them, its clients (host/serve/serve-client.ts) check the answers with them, and
// GET /openapi.json describes both with the JSON Schema each check carries (guards.ts).
import { questionTypeValues } from '../../engine/model/question-types';
import { stageStatuses } from '../../engine/model/stage-status';
import { runStatuses } from '../../engine/runtime/run-status';
import { anyJson, boolean, count, dictionary, list, literal, matching, nullable, object, oneOf, tagged, text, type Infer } from './guards';
import { fileChange, fileChangeKind, runView, traceEntry, visitFiles } from './webview';

export { runView };

const name = text(10_000);
const words = text(1_000_000);
/** A submitted source or parameter: as long as the server's --max-body lets it be. */
const source = text(1024 ** 3);
const timestamp = text(100);
/** More breakpoints than any pipeline needs is a malformed request, not a debugging session. */
export const MAX_BREAKPOINTS = 1000;
const nodeId = matching(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a node id');
const edgeEnds = object({ from: nodeId, to: nodeId }, {}, { closed: true });

/** Where a debugger attached over HTTP wants the run held: nodes (before they run) and edges (before they are taken). */
const holdBreakpoints = object({ nodes: list(nodeId, MAX_BREAKPOINTS), edges: list(edgeEnds, MAX_BREAKPOINTS) });

/** The last node of the main walk that finished, as a held run reports it. */
const heldOutcome = object({ nodeId: name, status: oneOf(stageStatuses), preferredLabel: nullable(words), notes: nullable(words), failureReason: nullable(words) });

const heldCommon = { reason: oneOf(['breakpoint', 'step', 'pause'] as const), iteration: count, since: timestamp, lastOutcome: nullable(heldOutcome) };
/** The run stands still: before node `nodeId` runs, or before it takes `edge` out of the node that just finished. */
const heldState = tagged(
  {
    node: object({ ...heldCommon, nodeId: name, step: count, visit: count }),
    edge: object({ ...heldCommon, nodeId: name, edge: object({ index: count, from: name, to: name }) }),
  },
  'kind',
);

/** How an attached debugger's lease stands. */
const attachLeaseState = object({ periodMs: count, expiresAt: nullable(timestamp) });

/**
 * A served run's status: the engine's, `interrupted` — a run of an earlier server whose engine went away
 * mid-walk (killed, crashed); resumable — or `queued`: submitted, waiting for a worker slot (--max-runs).
 */
const servedStatuses = [...runStatuses, 'interrupted', 'queued'] as const;

const summaryFields = {
  id: name,
  status: oneOf(servedStatuses),
  graphName: nullable(name),
  runId: nullable(name),
  logsRoot: name,
  cwd: name,
  sourcePath: nullable(name),
  createdAt: timestamp,
  /** Where the run waits for a worker slot (1: next), a submission not started or a run whose gate was answered while every slot was taken; null when it waits for none. */
  queuePosition: nullable(count),
  currentNodes: list(name),
  completedNodes: list(name),
  iteration: count,
  pendingQuestions: count,
  /** The id of the latest event: where a client's event stream would resume. */
  lastEventId: count,
  /** Where an attached debugger holds the run; null while it runs (or is over). */
  held: nullable(heldState),
  breakpoints: holdBreakpoints,
  /** The attached debugger's lease: its requests renew it; once it lapses the run is let go. */
  attachLease: attachLeaseState,
  /** Whether this server resumes the run or re-runs it from a visit when it has ended (false: it hands its runs to Restate, or follows one run). */
  continuable: boolean,
};
/** What `GET /pipelines/{id}` answers (and each entry of `GET /pipelines`). */
/** `endedAt`: when a run that is over stopped (its last checkpoint's time, for a run of an earlier server). */
const endFields = { failureReason: words, endedAt: timestamp };
export const pipelineSummary = object(summaryFields, endFields);
/** `POST /pipelines`' 201: the new run, and what validation warned about. */
export const submitted = object(summaryFields, { ...endFields, warnings: list(anyJson) });
export const pipelineList = object({ pipelines: list(pipelineSummary) });

/** A human gate's question as the server holds it until answered. */
const pendingQuestion = object(
  { id: name, nodeId: name, type: oneOf(questionTypeValues), text: words, options: list(object({ key: text(100), label: words, to: name }), 1000), freeform: boolean, askedAt: timestamp },
  { timeoutMs: count, defaultChoice: words },
);
export const questionList = object({ questions: list(pendingQuestion, 10_000) });

/** `POST /pipelines`: exactly one of `dot` (the source) or `path` (a .dot file under a root). */
export const submissionBody = object({}, { dot: source, path: name, params: dictionary(source), cwd: name }, { closed: true });
/** A file uploaded with a gate's answer: its base name and its bytes in base64 (the server stores it in the run directory). */
const upload = object({ name: text(255), base64: source }, {}, { closed: true });
/** At most this many files go with one answer. */
const MAX_UPLOADS = 20;
/** `POST …/answer`: exactly one of them, a choice or text with optional `attachments`. */
export const answerRequest = object({}, { choice: words, text: source, skipped: literal(true), attachments: list(upload, MAX_UPLOADS) }, { closed: true });
export type Upload = Infer<typeof upload>;

/** `POST /session`: the server's token, traded for a session cookie (the browser app's sign-in). */
export const sessionRequest = object({ token: text(10_000) }, {}, { closed: true });
/** Whether the caller (its cookie, its bearer token, or a loopback server's own page) may use the API. */
export const sessionState = object({ signedIn: boolean, tokenRequired: boolean });
/** `GET /sources`: the pipelines under each root a client may submit by `path`. */
export const sourceList = object({ roots: list(object({ root: name, files: list(name, 10_000) })) });
/** `PUT …/breakpoints`: each list optional; replaces the run's set. */
export const breakpointsBody = object({}, { nodes: list(nodeId, MAX_BREAKPOINTS), edges: list(edgeEnds, MAX_BREAKPOINTS) }, { closed: true });

/** `POST …/answer`'s answer; `queuePosition` when the run goes on only once a worker slot is free (202). */
export const answered = object({ answered: name }, { queuePosition: count });
export const traceRecords = object({ records: list(traceEntry) });
/** One visit's records, file changes and artifacts (the trace panel's `visitArtifacts` without its type). */
export const visitRecords = visitFiles;
/** `GET …/visit/diff`: one file a visit changed, before ↔ after it — git's hunks as text, or why it is not shown as text. */
const changed = { path: name, change: fileChangeKind };
export const visitFileDiff = tagged(
  {
    text: object({ ...changed, diff: text(16 * 1024 * 1024) }),
    binary: object(changed),
    'too-large': object({ ...changed, bytes: count, limit: count }),
  },
  'kind',
);

/** `POST …/rerun`: the visit to go back before (as the trace panel names it: visit within the iteration, default 1); `discardChanges` as `resume --from`'s --discard-changes. */
export const rerunRequest = object({ iteration: count, node: nodeId }, { visit: count, discardChanges: boolean }, { closed: true });
/** Where the branch run started from, and what the restore of the working directory did (`undo`: the command that brings back what it replaced). */
const rerunOrigin = object({ from: name, nodeId: name, visit: count }, { discarded: count, overBudget: list(name), workspaceNotRestored: words, undo: words });
/** `POST …/rerun`'s 202: the new branch run, and where it came from. */
export const rerunStarted = object({ ...summaryFields, rerun: rerunOrigin }, endFields);
/** `POST …/rerun`'s 409: refused; when the working directory holds changes the run did not make, nothing was done and they are listed (`cwd`, `changes`). */
export const rerunRefusal = object({ error: words }, { cwd: name, changes: list(fileChange) });

/** A run's context values, or its checkpoint: opaque JSON to a client. */
export const contextValues = dictionary(anyJson);
export const checkpointState = object({ status: oneOf(runStatuses), runId: name, graphName: name, cwd: name, iteration: count, completedNodes: list(name) });
/** Every refusal: `{"error": why}`, sometimes with more (a 422's `diagnostics`). */
export const refusal = object({ error: words }, { diagnostics: list(anyJson) });

export type PipelineSummary = Infer<typeof pipelineSummary>;
export type PendingQuestion = Infer<typeof pendingQuestion>;
export type HeldState = Infer<typeof heldState>;
export type HeldOutcome = Infer<typeof heldOutcome>;
export type HoldBreakpoints = Infer<typeof holdBreakpoints>;
export type AttachLeaseState = Infer<typeof attachLeaseState>;
export type ServedStatus = (typeof servedStatuses)[number];
