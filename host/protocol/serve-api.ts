// The HTTP API of `attractor serve` (and `attractor run --serve`): what its routes take and answer.
// The shapes are the contract's checks (serve-schemas.ts); the server parses request bodies with
// the functions below, its clients (host/serve/serve-client.ts) check the answers with the same checks.
import type { RunEvent } from '../../engine/runtime/events';
import type { Answer, GateReply } from '../../engine/runtime/interviewer';
import type { Check } from './guards';
import { answerRequest, breakpointsBody, MAX_BREAKPOINTS, submissionBody, type HeldState, type HoldBreakpoints, type Upload } from './serve-schemas';

export type { AttachLeaseState, HeldOutcome, HeldState, HoldBreakpoints, PendingQuestion, PipelineSummary, ServedStatus } from './serve-schemas';

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

/** What `POST /pipelines` asks for: exactly one of inline DOT or a path to a .dot file. */
export interface Submission {
  readonly pipeline: { readonly kind: 'source'; readonly dot: string } | { readonly kind: 'path'; readonly path: string };
  readonly params: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A body checked with its contract check; 400 with the check's reason when it does not fit. */
function parsed<T>(check: Check<T>, body: Readonly<Record<string, unknown>>): T {
  const result = check(body, '');
  if (!result.ok) throw new HttpError(400, result.error);
  return result.value;
}

export function parseSubmission(body: Readonly<Record<string, unknown>>): Submission {
  const { dot, path, params = {}, cwd } = parsed(submissionBody, body);
  if ((dot === undefined) === (path === undefined)) throw new HttpError(400, 'give exactly one of "dot" (the DOT source) or "path" (a .dot file)');
  if (dot !== undefined && dot.trim() === '') throw new HttpError(400, '"dot" must be a non-empty string');
  if (path === '' || cwd === '') throw new HttpError(400, `"${path === '' ? 'path' : 'cwd'}" must be a non-empty string`);
  return { pipeline: dot !== undefined ? { kind: 'source', dot } : { kind: 'path', path: path as string }, params, ...(cwd !== undefined ? { cwd } : {}) };
}

/**
 * `POST …/answer`: `{"choice": key|label|target}`, `{"text": free text}` or `{"skipped": true}`; a
 * choice or text may bring `attachments` (files uploaded with it), which the server stores and adds
 * to the answer as paths.
 */
export function parseAnswer(body: Readonly<Record<string, unknown>>): { readonly answer: GateReply; readonly uploads: readonly Upload[] } {
  const { choice, text, attachments: uploads = [] } = parsed(answerRequest, body);
  if (Object.keys(body).filter((key) => key !== 'attachments').length !== 1) throw new HttpError(400, 'give exactly one of "choice", "text" or "skipped"');
  if (choice === '') throw new HttpError(400, '"choice" must be a non-empty string');
  if (choice !== undefined) return { answer: { kind: 'option', choice }, uploads };
  if (text !== undefined) return { answer: { kind: 'freeform', text }, uploads };
  if (uploads.length > 0) throw new HttpError(400, 'a skipped gate takes no "attachments"');
  return { answer: { kind: 'skipped' }, uploads };
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

/** `PUT …/breakpoints`: `{"nodes": [node id…], "edges": [{"from", "to"}…]}`, each list optional; replaces the run's set. */
export function parseBreakpoints(body: Readonly<Record<string, unknown>>): HoldBreakpoints {
  const { nodes = [], edges = [] } = parsed(breakpointsBody, body);
  if (nodes.length + edges.length > MAX_BREAKPOINTS) throw new HttpError(400, `at most ${MAX_BREAKPOINTS} breakpoints`);
  return { nodes, edges };
}
