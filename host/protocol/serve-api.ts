// The HTTP API of `attractor serve` (and `attractor run --serve`): what its routes take and answer.
// The server parses request bodies with the checks below; its clients (host/serve/serve-client.ts)
// read the answers as these types.
import { isRecord } from '../../engine/model/json';
import { questionTypeValues } from '../../engine/model/question-types';
import { boolean, count, list, object, oneOf, text, type Check, type CheckResult } from './guards';
import type { HumanQuestion, RunEvent } from '../../engine/runtime/events';
import type { Answer } from '../../engine/runtime/interviewer';
import type { Outcome } from '../../engine/runtime/outcome';
import type { RunStatus } from '../../engine/runtime/run-status';

/** A refusal with its HTTP status; the server answers it as `{"error": message}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

/** Where a debugger attached over HTTP wants the run held: nodes (before they run) and edges (before they are taken). */
export interface HoldBreakpoints {
  readonly nodes: readonly string[];
  readonly edges: readonly { readonly from: string; readonly to: string }[];
}

type HoldReason = 'breakpoint' | 'step' | 'pause';

/** The last node of the main walk that finished, as a held run reports it. */
export interface HeldOutcome {
  readonly nodeId: string;
  readonly status: Outcome['status'];
  readonly preferredLabel: string | null;
  readonly notes: string | null;
  readonly failureReason: string | null;
}

interface HeldCommon {
  readonly reason: HoldReason;
  readonly iteration: number;
  readonly since: string;
  readonly lastOutcome: HeldOutcome | null;
}

/** The run stands still: before node `nodeId` runs, or before it takes `edge` out of the node that just finished. */
export type HeldState =
  | (HeldCommon & { readonly kind: 'node'; readonly nodeId: string; readonly step: number; readonly visit: number })
  | (HeldCommon & { readonly kind: 'edge'; readonly nodeId: string; readonly edge: { readonly index: number; readonly from: string; readonly to: string } });

/** How the walk goes on once released: freely, or held again at the next node boundary. */
export type ReleaseMode = 'run' | 'step';

/** The server's own event: an attached debugger held the run (`held`) or released it (`null`). */
interface HoldEvent {
  readonly type: 'hold';
  readonly held: HeldState | null;
}

/**
 * The server's own event: the attached debugger renewed nothing for `periodMs` (killed, or its network
 * gone), so its breakpoints were dropped and the run let go (a `hold` event with null follows when it was held).
 */
interface LeaseLapsedEvent {
  readonly type: 'lease:lapsed';
  readonly periodMs: number;
  readonly droppedBreakpoints: HoldBreakpoints;
  readonly released: HeldState | null;
}

/** What a run's event stream carries: the engine's events and the server's hold changes. */
export type ServedEvent = RunEvent | HoldEvent | LeaseLapsedEvent;

/** A human gate's question as the server holds it until answered. */
export interface PendingQuestion extends HumanQuestion {
  readonly askedAt: string;
}

const pendingQuestion: Check<PendingQuestion> = object(
  {
    id: text(10_000),
    nodeId: text(10_000),
    type: oneOf(questionTypeValues),
    text: text(),
    options: list(object({ key: text(100), label: text(100_000), to: text(10_000) }), 1000),
    freeform: boolean,
    askedAt: text(100),
  },
  { timeoutMs: count, defaultChoice: text(100_000) },
);

/** `GET …/questions`'s list as a client receives it: every question checked, the first problem named by its path. */
export function parsePendingQuestions(body: unknown): CheckResult<readonly PendingQuestion[]> {
  return list(pendingQuestion, 10_000)(body, 'questions');
}

/** How an attached debugger's lease stands, as `GET /pipelines/{id}` reports it. */
export interface AttachLeaseState {
  /** A debugger that sends nothing for this long has gone: its breakpoints are dropped and the run let go. */
  readonly periodMs: number;
  /** When the lease lapses unless renewed; null when no debugger has renewed it since it last lapsed. */
  readonly expiresAt: string | null;
}

/** A served run's status: the engine's, or `interrupted` — a run of an earlier server whose engine went away mid-walk (killed, crashed); resumable. */
export type ServedStatus = RunStatus | 'interrupted';

/** What `GET /pipelines/{id}` answers (and each entry of `GET /pipelines`). */
export interface PipelineSummary {
  readonly id: string;
  readonly status: ServedStatus;
  readonly failureReason?: string;
  readonly graphName: string | null;
  readonly runId: string | null;
  readonly logsRoot: string;
  readonly cwd: string;
  readonly sourcePath: string | null;
  readonly createdAt: string;
  readonly currentNodes: readonly string[];
  readonly completedNodes: readonly string[];
  readonly iteration: number;
  readonly pendingQuestions: number;
  /** The id of the latest event: where a client's event stream would resume. */
  readonly lastEventId: number;
  /** Where an attached debugger holds the run; null while it runs (or is over). */
  readonly held: HeldState | null;
  readonly breakpoints: HoldBreakpoints;
  /** The attached debugger's lease: its requests renew it; once it lapses the run is let go. */
  readonly attachLease: AttachLeaseState;
}

/** What `POST /pipelines` asks for: exactly one of inline DOT or a path to a .dot file. */
export interface Submission {
  readonly pipeline: { readonly kind: 'source'; readonly dot: string } | { readonly kind: 'path'; readonly path: string };
  readonly params: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

const SUBMISSION_KEYS = new Set(['dot', 'path', 'params', 'cwd']);

export function parseSubmission(body: Readonly<Record<string, unknown>>): Submission {
  rejectUnknownKeys(body, SUBMISSION_KEYS);
  const { dot, path, params = {}, cwd } = body;
  if ((dot === undefined) === (path === undefined)) throw new HttpError(400, 'give exactly one of "dot" (the DOT source) or "path" (a .dot file)');
  if (dot !== undefined && (typeof dot !== 'string' || dot.trim() === '')) throw new HttpError(400, '"dot" must be a non-empty string');
  if (path !== undefined && (typeof path !== 'string' || path === '')) throw new HttpError(400, '"path" must be a non-empty string');
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) throw new HttpError(400, '"cwd" must be a non-empty string');
  if (!isRecord(params)) throw new HttpError(400, '"params" must be an object of strings');
  for (const [key, value] of Object.entries(params)) {
    if (typeof value !== 'string') throw new HttpError(400, `"params.${key}" must be a string`);
  }
  return {
    pipeline: typeof dot === 'string' ? { kind: 'source', dot } : { kind: 'path', path: path as string },
    params: params as Record<string, string>,
    ...(typeof cwd === 'string' ? { cwd } : {}),
  };
}

/** `POST …/answer`: `{"choice": key|label|target}`, `{"text": free text}` or `{"skipped": true}`. */
export function parseAnswer(body: Readonly<Record<string, unknown>>): Answer {
  rejectUnknownKeys(body, new Set(['choice', 'text', 'skipped']));
  const given = Object.keys(body);
  if (given.length !== 1) throw new HttpError(400, 'give exactly one of "choice", "text" or "skipped"');
  if (typeof body.choice === 'string' && body.choice !== '') return { kind: 'option', choice: body.choice };
  if (typeof body.text === 'string') return { kind: 'freeform', text: body.text };
  if (body.skipped === true) return { kind: 'skipped' };
  throw new HttpError(400, '"choice" must be a non-empty string, "text" a string, "skipped" true');
}

/** An answer as `POST …/answer` takes it (parseAnswer's inverse); a timeout is sent as skipped. */
export function answerBody(answer: Answer): Record<string, unknown> {
  switch (answer.kind) {
    case 'option':
      return { choice: answer.choice };
    case 'freeform':
      return { text: answer.text };
    case 'skipped':
    case 'timeout':
      return { skipped: true };
  }
}

/** More breakpoints than any pipeline needs is a malformed request, not a debugging session. */
const MAX_BREAKPOINTS = 1000;
const NODE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `PUT …/breakpoints`: `{"nodes": [node id…], "edges": [{"from", "to"}…]}`, each list optional; replaces the run's set. */
export function parseBreakpoints(body: Readonly<Record<string, unknown>>): HoldBreakpoints {
  rejectUnknownKeys(body, new Set(['nodes', 'edges']));
  const { nodes = [], edges = [] } = body;
  if (!Array.isArray(nodes) || !nodes.every((node) => typeof node === 'string' && NODE_ID.test(node))) throw new HttpError(400, '"nodes" must be a list of node ids');
  if (!Array.isArray(edges)) throw new HttpError(400, '"edges" must be a list of {"from", "to"}');
  if (nodes.length + edges.length > MAX_BREAKPOINTS) throw new HttpError(400, `at most ${MAX_BREAKPOINTS} breakpoints`);
  const parsedEdges = edges.map((edge: unknown, i) => {
    if (!isRecord(edge)) throw new HttpError(400, `"edges[${i}]" must be {"from", "to"}`);
    rejectUnknownKeys(edge, new Set(['from', 'to']));
    const { from, to } = edge;
    if (typeof from !== 'string' || !NODE_ID.test(from) || typeof to !== 'string' || !NODE_ID.test(to)) throw new HttpError(400, `"edges[${i}]": "from" and "to" must be node ids`);
    return { from, to };
  });
  return { nodes: nodes as string[], edges: parsedEdges };
}

function rejectUnknownKeys(body: Readonly<Record<string, unknown>>, known: ReadonlySet<string>): void {
  const unknown = Object.keys(body).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new HttpError(400, `unknown field(s): ${unknown.join(', ')} (expected ${[...known].join(', ')})`);
}
