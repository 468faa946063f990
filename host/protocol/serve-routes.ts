// Every route of `attractor serve`, in one table: the server dispatches through it (a request that
// matches no row is 404, a row with another method 405), and GET /openapi.json is generated from it.
// Bodies and answers are the contract's checks (serve-schemas.ts).
import { count, matching, text, type Check } from './guards';
import * as schemas from './serve-schemas';

type Method = 'GET' | 'POST' | 'PUT';

/** An answer of a route: JSON checked by `json`, or another media type described in words. */
type Reply = { readonly description: string; readonly json: Check<unknown> } | { readonly description: string; readonly media: string };

export interface Operation {
  readonly method: Method;
  /** `/pipelines/{id}/…`: a `{name}` segment is one path parameter (percent-encoded). */
  readonly path: string;
  readonly summary: string;
  readonly query?: Readonly<Record<string, { readonly check: Check<unknown>; readonly description: string; readonly required?: boolean }>>;
  readonly body?: Check<unknown>;
  readonly replies: Readonly<Record<number, Reply>>;
}

const summary = { description: 'the run', json: schemas.pipelineSummary } as const;
/** A main-walk visit as the trace panel names it. */
const visitQuery = {
  iteration: { check: count, description: 'the iteration (from 0)', required: true },
  node: { check: matching(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a node id'), description: 'the node id', required: true },
  visit: { check: count, description: 'the visit of the node within the iteration, from 1 (default 1)' },
} as const;
const debugged = (what: string): Operation => ({ method: 'POST', path: '', summary: what, replies: { 200: summary } });

export const serveRoutes = {
  listPipelines: { method: 'GET', path: '/pipelines', summary: 'Every run of this server (earlier servers\' runs under its logs root included)', replies: { 200: { description: 'the runs, oldest first', json: schemas.pipelineList } } },
  submitPipeline: {
    method: 'POST',
    path: '/pipelines',
    summary: 'Start a pipeline: exactly one of `dot` or `path` (under a root); `params`, `cwd` (default: the first root)',
    body: schemas.submissionBody,
    replies: {
      201: { description: 'the run, started, or `queued` at `queuePosition` when every worker slot (--max-runs) is taken', json: schemas.submitted },
      422: { description: 'the pipeline does not validate (`diagnostics`)', json: schemas.refusal },
      503: { description: '--max-queued submissions already wait for a slot (Retry-After)', json: schemas.refusal },
    },
  },
  getPipeline: { method: 'GET', path: '/pipelines/{id}', summary: 'A run\'s status', replies: { 200: summary } },
  pipelineEvents: {
    method: 'GET',
    path: '/pipelines/{id}/events',
    summary: 'The run\'s events as Server-Sent Events (`id`: its number, `event`: its type, `data`: the event as JSON), after Last-Event-ID; ends after run:end',
    query: { lastEventId: { check: count, description: 'resume after this event (for clients that cannot set Last-Event-ID)' } },
    replies: { 200: { description: 'the event stream', media: 'text/event-stream' } },
  },
  cancelPipeline: { method: 'POST', path: '/pipelines/{id}/cancel', summary: 'Cancel a running run (it stays resumable) or a queued one', replies: { 202: summary, 409: { description: 'already finished', json: schemas.refusal } } },
  resumePipeline: {
    method: 'POST',
    path: '/pipelines/{id}/resume',
    summary: 'Walk an interrupted or cancelled run on from its last checkpoint (attractor resume\'s checks)',
    replies: { 202: summary, 409: { description: 'not resumable, or refused (the reason)', json: schemas.refusal }, 503: { description: 'no worker slot is free (--max-runs), or runs wait for one (Retry-After)', json: schemas.refusal } },
  },
  pipelineSource: { method: 'GET', path: '/pipelines/{id}/source', summary: 'The DOT source the run walks', replies: { 200: { description: 'DOT', media: 'text/vnd.graphviz' } } },
  pipelineGraph: { method: 'GET', path: '/pipelines/{id}/graph', summary: 'The graph drawn as the graph view draws it, nodes filled by status', replies: { 200: { description: 'SVG', media: 'image/svg+xml' } } },
  pipelineView: { method: 'GET', path: '/pipelines/{id}/view', summary: 'The run as the graph view draws it: each node\'s status and visits, the edges taken, the active node', replies: { 200: { description: 'the graph state', json: schemas.runView } } },
  pipelineTrace: { method: 'GET', path: '/pipelines/{id}/trace', summary: 'The run\'s trace.jsonl: one record per visit', replies: { 200: { description: 'the records', json: schemas.traceRecords } } },
  pipelineVisit: {
    method: 'GET',
    path: '/pipelines/{id}/visit',
    summary: 'One main-walk visit: its records, the files it changed, the artifacts it stored',
    query: visitQuery,
    replies: { 200: { description: 'the visit', json: schemas.visitRecords } },
  },
  visitFileDiff: {
    method: 'GET',
    path: '/pipelines/{id}/visit/diff',
    summary: 'One file a main-walk visit changed, before ↔ after it, from the run\'s workspace snapshots (only the visit\'s changed files are read)',
    query: {
      ...visitQuery,
      path: { check: text(10_000), description: 'the file, workspace-relative with / (one of the visit\'s `fileChanges`)', required: true },
    },
    replies: {
      200: { description: 'git\'s hunks as text, or a binary or too large file named', json: schemas.visitFileDiff },
      404: { description: 'no such visit, no snapshots around it, or a file it did not change', json: schemas.refusal },
    },
  },
  rerunPipeline: {
    method: 'POST',
    path: '/pipelines/{id}/rerun',
    summary: 'Re-run from a visit (time travel, `attractor resume --from`): a new branch run from before it, with the run state and the working directory of then; this run stays as it is',
    body: schemas.rerunRequest,
    replies: {
      202: { description: 'the branch run, started', json: schemas.rerunStarted },
      404: { description: 'no such visit', json: schemas.refusal },
      409: { description: 'the working directory holds changes the run did not make (`changes`; nothing was done: send `discardChanges: true` to go back anyway), or refused (still running, its lock held)', json: schemas.rerunRefusal },
      503: { description: 'no worker slot is free (--max-runs), or runs wait for one (Retry-After)', json: schemas.refusal },
    },
  },
  pipelineQuestions: { method: 'GET', path: '/pipelines/{id}/questions', summary: 'The human gates waiting for an answer', replies: { 200: { description: 'the questions', json: schemas.questionList } } },
  answerQuestion: {
    method: 'POST',
    path: '/pipelines/{id}/questions/{qid}/answer',
    summary: 'Answer a gate: exactly one of `choice` (key, label or target), `text`, `skipped: true`',
    body: schemas.answerRequest,
    replies: {
      200: { description: 'answered', json: schemas.answered },
      202: { description: 'answered; the run goes on once a worker slot is free (`queuePosition`)', json: schemas.answered },
      404: { description: 'no such question waits (answered elsewhere, timed out)', json: schemas.refusal },
    },
  },
  pipelineCheckpoint: { method: 'GET', path: '/pipelines/{id}/checkpoint', summary: 'The latest checkpoint (the final state once the run ended)', replies: { 200: { description: 'the run state', json: schemas.checkpointState } } },
  pipelineContext: { method: 'GET', path: '/pipelines/{id}/context', summary: 'The run\'s context (the held boundary\'s while a debugger holds it)', replies: { 200: { description: 'context values', json: schemas.contextValues } } },
  setBreakpoints: { method: 'PUT', path: '/pipelines/{id}/breakpoints', summary: 'Hold the main walk before these nodes and edges', body: schemas.breakpointsBody, replies: { 200: summary } },
  renewLease: { ...debugged('The attached debugger is still there'), path: '/pipelines/{id}/lease' },
  pausePipeline: { ...debugged('Hold at the next node'), path: '/pipelines/{id}/pause', replies: { 202: summary } },
  continuePipeline: { ...debugged('Let a held run go on'), path: '/pipelines/{id}/continue' },
  stepPipeline: { ...debugged('Let a held run go on to its next node'), path: '/pipelines/{id}/step' },
  openApi: { method: 'GET', path: '/openapi.json', summary: 'This document', replies: { 200: { description: 'OpenAPI 3.1', media: 'application/json' } } },
  pipelinesFeed: {
    method: 'GET',
    path: '/events',
    summary: 'Every run of this server as Server-Sent Events: a `pipelines` event (data: what GET /pipelines answers) at once and whenever a run changes',
    replies: { 200: { description: 'the event stream', media: 'text/event-stream' } },
  },
  listSources: { method: 'GET', path: '/sources', summary: 'The .dot files under the server\'s roots, which POST /pipelines takes as `path`', replies: { 200: { description: 'each root and its pipelines (relative paths)', json: schemas.sourceList } } },
  webPage: { method: 'GET', path: '/', summary: 'The browser app: the runs, their graphs, traces and gates (its script and style are /web/…)', replies: { 200: { description: 'the page', media: 'text/html' } } },
  webAsset: { method: 'GET', path: '/web/{file}', summary: 'A file of the browser app (app.js, app.css)', replies: { 200: { description: 'the script or style sheet', media: 'text/javascript' }, 404: { description: 'no such file', json: schemas.refusal } } },
  sessionState: { method: 'GET', path: '/session', summary: 'Whether the caller may use the API, and whether this server asks for its token', replies: { 200: { description: 'the caller\'s state', json: schemas.sessionState } } },
  signIn: {
    method: 'POST',
    path: '/session',
    summary: 'Trade the server\'s token for a session cookie (HttpOnly, SameSite=Strict): the browser app\'s sign-in; only from the server\'s own origin',
    body: schemas.sessionRequest,
    replies: { 200: { description: 'signed in (Set-Cookie)', json: schemas.sessionState }, 403: { description: 'not the token, or not from this server\'s origin', json: schemas.refusal } },
  },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof serveRoutes;

export type RouteMatch = { readonly kind: 'found'; readonly operation: OperationId; readonly params: Readonly<Record<string, string>> } | { readonly kind: 'method'; readonly allowed: readonly Method[] } | { readonly kind: 'none' };

/** The row of the table a request names; `segments` are the path's, percent-decoded. */
export function matchRoute(method: string, segments: readonly string[]): RouteMatch {
  const allowed: Method[] = [];
  for (const [operation, route] of Object.entries(serveRoutes) as Array<[OperationId, Operation]>) {
    const params = matchPath(route.path, segments);
    if (!params) continue;
    if (route.method === method) return { kind: 'found', operation, params };
    allowed.push(route.method);
  }
  return allowed.length > 0 ? { kind: 'method', allowed } : { kind: 'none' };
}

function matchPath(template: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = template.split('/').filter(Boolean);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i] as string;
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (name) params[name] = segment;
    else if (part !== segment) return undefined;
  }
  return params;
}
