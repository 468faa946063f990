import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunnerIdentity } from '../engine/runtime/run-directory';
import type { CodergenBackend } from '../engine/runtime/backend';
import type { SandboxRequest } from '../engine/model/sandbox-setting';
import { carriesToken, isToken } from './bearer-token';
import { renderRunSvg } from './graph-svg';
import { readJsonObject, sendError, sendJson } from './http-io';
import { HttpError, parseAnswer, parseBreakpoints, parseSubmission, type ReleaseMode } from '../host/protocol/serve-api';
import { matchRoute, type OperationId } from '../host/protocol/serve-routes';
import { openApiDocument } from '../host/protocol/openapi';
import type { Roots } from './roots';
import { ServedRun } from './served-run';
import { prepareQueued, prepareSubmission, queuedSpec, type PreparedSubmission } from './submission';
import type { QueuedSubmissions } from './queued-submissions';
import { SlotQueue } from './slot-queue';
import { submissionChecker, type SubmissionChecker } from './submission-checker';
import { claimSocketPath } from './socket-path';
import { runFile } from '../engine/runtime/run-layout';
import { ConnectionCap, connectionsWithin, openFileLimit } from './connection-cap';
import { WebSessions, sessionCookie } from './web-sessions';
import { sendWebAsset, sendWebPage } from './web-app';
import { streamPipelines } from './pipelines-feed';
import { listSources } from './source-list';
import { storeUploads } from './gate-uploads';
import { rerunRequest, sessionRequest } from '../host/protocol/serve-schemas';
import { awaitStartsOnRestate, restoredRuns } from './restored-runs';
import { resumeServed, resumeWithHeldAnswer } from './resume-served';
import { RunReader } from '../host/run-directory/run-reader';
import { visitDiff, visitFiles } from './visit-files';
import { rerunServed } from './rerun-served';
import { streamEvents } from './run-event-stream';

export type ListenTarget = { readonly port: number; readonly host: string } | { readonly socket: string };

/** What a server needs to start pipelines that clients submit. */
export interface Launcher {
  readonly roots: Roots;
  /** Each run writes its run directory under it, named by the run's server id. */
  readonly logsRoot: string;
  /** Who walks the runs: this process (with a fresh backend and fan-out default for each run), or Restate's workers behind its ingress. */
  readonly walkers: { readonly kind: 'here'; readonly execution: () => Execution } | { readonly kind: 'restate'; readonly ingress: URL };
  /** Runs holding a worker slot at once (a run waiting at a human gate holds none); a submission beyond it waits in the queue. */
  readonly maxRunning: number;
  /** Submissions that may wait for a slot; one more is refused (503). */
  readonly maxQueued: number;
  /** How long an attached debugger may go silent before the run is let go (ServedRunSpec). */
  readonly attachLeaseMs: number;
  /** The queue as kept on disk, where only this user writes: a restarted server takes it up again. */
  readonly queued: QueuedSubmissions;
}

export interface Execution {
  readonly backend: CodergenBackend;
  readonly defaultMaxParallel?: number;
  readonly sandbox?: SandboxRequest;
  readonly runner?: RunnerIdentity;
}

export interface PipelineServerOptions {
  /** Absent on a server that only follows the runs given to `adopt` (`attractor run --serve`). */
  readonly launcher?: Launcher;
  /** Validates the launcher's submissions (default: on the event loop's thread). */
  readonly checker?: SubmissionChecker;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  readonly token?: string;
  readonly maxBodyBytes: number;
  /** Clients connected at once (default: what the open-file limit leaves beside the runs' needs). */
  readonly maxConnections?: number;
}

/**
 * A connection that has not sent its request's headers this long is closed (with 408), an idle
 * keep-alive connection sooner, a request whose body is still arriving later; once a request is in,
 * its answer (an SSE stream) takes as long as it takes.
 */
const TIMEOUTS = { headersTimeout: 20_000, keepAliveTimeout: 5_000, requestTimeout: 120_000, connectionsCheckingInterval: 2_000 } as const;

interface RouteCall {
  readonly request: http.IncomingMessage;
  readonly response: http.ServerResponse;
  readonly url: URL;
  /** The route's path parameters (`id`, `qid`), percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
}

type Handler = (call: RouteCall) => Promise<void> | void;

/** Canonical §9.5: the engine as an HTTP service. Runs live in this process; their run directories are written as by `attractor run`. */
export class PipelineServer {
  private readonly runs = new Map<string, ServedRun>();
  private readonly server: http.Server;
  private readonly checker: SubmissionChecker;
  private readonly connections: ConnectionCap;
  /** The finished runs' event logs being written to their run directories. */
  private readonly storing = new Set<Promise<Error | undefined>>();
  /** The launcher's worker slots and the runs waiting for one. */
  private readonly queue: SlotQueue;
  private readonly sessions: WebSessions;
  private readonly stopAwaiting: () => void;

  constructor(private readonly options: PipelineServerOptions) {
    this.checker = options.checker ?? submissionChecker(undefined);
    this.sessions = new WebSessions(options.token);
    this.queue = new SlotQueue(options.launcher?.maxRunning ?? 1, options.launcher?.maxQueued ?? 0, () => [...this.runs.values()].filter((run) => run.holdsSlot).length);
    // Runs outlive the server: those an earlier one left under the logs root are served again, and those still going on Restate followed.
    const { launcher } = options;
    for (const run of launcher ? restoredRuns(launcher) : []) {
      if (run.status === 'running') this.track(run);
      else this.runs.set(run.spec.id, run);
    }
    // Those no worker had started yet are followed once a worker has.
    this.stopAwaiting = launcher ? awaitStartsOnRestate(launcher, (run) => this.track(run)) : () => undefined;
    if (launcher) {
      this.restoreHeldAnswers(launcher);
      this.restoreQueue(launcher);
    }
    this.server = http.createServer(TIMEOUTS, (request, response) => void this.handle(request, response));
    this.connections = new ConnectionCap(this.server, options.maxConnections ?? connectionsWithin(openFileLimit(), launcher?.maxRunning ?? 1).cap);
  }

  /** A TCP port on `host`, or a Unix socket path; resolves to the URL clients use. */
  async listen(where: ListenTarget): Promise<string> {
    if ('socket' in where) await claimSocketPath(where.socket);
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      const listening = () => {
        // Listening, the server starts the submissions an earlier one left waiting; one that cannot listen starts nothing.
        this.queue.pump();
        if ('socket' in where) return resolve(`unix:${where.socket}`);
        const { address, family, port } = this.server.address() as AddressInfo;
        resolve(`http://${family === 'IPv6' ? `[${address}]` : address}:${port}`);
      };
      if ('socket' in where) this.server.listen(where.socket, listening);
      else this.server.listen(where.port, where.host, listening);
    });
  }

  /** Serves a run started elsewhere (the CLI's own). */
  adopt(run: ServedRun): void {
    this.runs.set(run.spec.id, run);
  }

  /** Cancels every pipeline running here and waits for each to write its last checkpoint (runs on Restate go on), then stops listening. */
  async close(): Promise<void> {
    this.stopAwaiting();
    await Promise.all([...this.runs.values()].filter((run) => run.status === 'running').map((run) => run.letGo()));
    await Promise.all(this.storing);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.checker.close();
    this.options.launcher?.queued.close();
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    try {
      const overCap = this.connections.refusal(request.socket);
      if (overCap !== undefined) {
        response.setHeader('retry-after', '5');
        response.setHeader('connection', 'close');
        throw new HttpError(503, overCap);
      }
      const url = new URL(request.url ?? '/', 'http://server');
      const { operation, params } = this.route(request, url);
      this.sessions.admit(request, operation, this.options.token);
      await this.handlers[operation]({ request, response, url, params });
    } catch (error) {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const refusal = error instanceof HttpError ? error : new HttpError(500, error instanceof Error ? error.message : String(error));
      if (refusal.status === 401) response.setHeader('www-authenticate', 'Bearer');
      // A refused upload may still be arriving: close the connection rather than read it.
      if (refusal.status === 413) response.setHeader('connection', 'close');
      if (refusal.status === 503 && !response.hasHeader('retry-after')) response.setHeader('retry-after', '10');
      sendError(response, refusal);
    }
  }

  private route(request: http.IncomingMessage, url: URL): { readonly operation: OperationId; readonly params: Readonly<Record<string, string>> } {
    let segments: string[];
    try {
      segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      throw new HttpError(400, `malformed path ${url.pathname}`);
    }
    const method = request.method ?? 'GET';
    const matched = matchRoute(method, segments);
    if (matched.kind === 'none') throw new HttpError(404, `no such endpoint: ${url.pathname}`);
    if (matched.kind === 'method') throw new HttpError(405, `${url.pathname} accepts ${matched.allowed.join(', ')}, not ${method}`);
    return matched;
  }

  /** The run a route's `{id}` names; 404 when this server has none by that id. */
  private runOf(params: Readonly<Record<string, string>>): ServedRun {
    const id = params.id ?? '';
    const run = this.runs.get(id);
    if (!run) throw new HttpError(404, `no pipeline ${id}`);
    return run;
  }

  private launcherFor(what: string): Launcher {
    const { launcher } = this.options;
    if (!launcher) throw new HttpError(405, `this server follows one run; it ${what} no others`);
    return launcher;
  }

  /** What each row of the route table (host/protocol/serve-routes.ts) does: one handler per row, no other route. */
  private readonly handlers: Readonly<Record<OperationId, Handler>> = {
    listPipelines: ({ response }) => sendJson(response, 200, this.list()),
    submitPipeline: ({ request, response }) => this.submit(this.launcherFor('starts'), request, response),
    getPipeline: ({ response, params }) => sendJson(response, 200, this.runOf(params).summary()),
    pipelineEvents: ({ request, response, url, params }) => streamEvents(this.runOf(params), request, response, url),
    cancelPipeline: ({ response, params }) => {
      const run = this.runOf(params);
      const unstarted = run.status === 'queued';
      this.queue.remove(run);
      if (!run.cancel()) throw new HttpError(409, `pipeline ${run.spec.id} already finished (${run.status})`);
      const summary = run.summary();
      // Cancelled in the queue, it stays cancelled over a restart.
      if (unstarted) this.options.launcher?.queued.end(run.spec.id, { status: 'cancelled', reason: summary.failureReason ?? 'cancelled', endedAt: summary.endedAt ?? new Date().toISOString() });
      sendJson(response, 202, summary);
    },
    resumePipeline: async ({ response, params }) => {
      const run = this.runOf(params);
      const launcher = this.launcherFor('resumes');
      this.admit();
      const resumed = await resumeServed(run, launcher);
      this.track(resumed);
      sendJson(response, 202, resumed.summary());
    },
    pipelineSource: ({ response, params }) => {
      const run = this.runOf(params);
      response.writeHead(200, { 'content-type': 'text/vnd.graphviz; charset=utf-8', 'cache-control': 'no-store' });
      response.end(run.spec.source);
    },
    pipelineGraph: async ({ response, params }) => {
      const run = this.runOf(params);
      const svg = await renderRunSvg(run.spec.source, run.spec.sourcePath, run.nodeProgress);
      response.writeHead(200, { 'content-type': 'image/svg+xml; charset=utf-8', 'cache-control': 'no-store' });
      response.end(svg);
    },
    pipelineView: ({ response, params }) => sendJson(response, 200, this.runOf(params).view),
    pipelineTrace: ({ response, params }) => sendJson(response, 200, { records: new RunReader(this.runOf(params).spec.logsRoot).trace() }),
    pipelineVisit: ({ response, url, params }) => sendJson(response, 200, visitFiles(this.runOf(params), url.searchParams)),
    visitFileDiff: ({ response, url, params }) => sendJson(response, 200, visitDiff(this.runOf(params), url.searchParams)),
    rerunPipeline: async ({ request, response, params }) => {
      const run = this.runOf(params);
      const launcher = this.launcherFor('re-runs');
      const given = rerunRequest(await readJsonObject(request, this.options.maxBodyBytes), '');
      if (!given.ok) throw new HttpError(400, given.error);
      this.admit();
      const branch = await rerunServed(run, given.value, launcher);
      this.track(branch.run);
      response.setHeader('location', `/pipelines/${encodeURIComponent(branch.run.spec.id)}`);
      sendJson(response, 202, { ...branch.run.summary(), rerun: branch.rerun });
    },
    pipelineQuestions: ({ response, params }) => sendJson(response, 200, { questions: this.runOf(params).pendingQuestions() }),
    answerQuestion: async ({ request, response, params }) => {
      const run = this.runOf(params);
      const qid = params.qid ?? '';
      const { answer, uploads } = parseAnswer(await readJsonObject(request, this.options.maxBodyBytes));
      const noSuchQuestion = new HttpError(404, `no pending question ${qid} in pipeline ${run.spec.id} (answered elsewhere, timed out, or the run moved on)`);
      if (uploads.length > 0 && !run.pendingQuestions().some((question) => question.id === qid)) throw noSuchQuestion;
      const attachments = uploads.length > 0 ? { attachments: storeUploads(run.spec.logsRoot, qid, uploads) } : {};
      const given = answer.kind === 'option' || answer.kind === 'freeform' ? { ...answer, ...attachments } : answer;
      // Answered, the run goes on: with a slot, or after the runs already waiting for one.
      if (run.lastQuestion(qid) && !this.queue.hasRoom()) {
        // On disk before the client hears it was taken: a server killed before the run's turn leaves it to the next one.
        const queued = this.options.launcher?.queued;
        queued?.holdAnswer({ id: run.spec.id, questionId: qid, answer: given });
        const queuePosition = this.queue.enqueue(run, () => run.deliverHeldAnswer(), false);
        run.holdAnswer({ questionId: qid, answer: given, asked: true, settled: () => queued?.releaseAnswer(run.spec.id) }, () => this.queue.position(run));
        sendJson(response, 202, { answered: qid, queuePosition });
        return;
      }
      if (!(await run.answer(qid, given))) throw noSuchQuestion;
      sendJson(response, 200, { answered: qid });
    },
    pipelineCheckpoint: ({ response, params }) => sendJson(response, 200, latestCheckpoint(this.runOf(params))),
    // Held, the boundary's live context (edits of the node that just finished included) is the current one.
    pipelineContext: ({ response, params }) => {
      const run = this.runOf(params);
      sendJson(response, 200, run.hold.heldContext ?? latestCheckpoint(run).context);
    },
    setBreakpoints: async ({ request, response, params }) => {
      const run = this.runOf(params);
      const breakpoints = parseBreakpoints(await readJsonObject(request, this.options.maxBodyBytes));
      refuseUnholdable(run);
      run.renewLease();
      run.hold.setBreakpoints(breakpoints);
      sendJson(response, 200, run.summary());
    },
    renewLease: ({ response, params }) => {
      const run = this.runOf(params);
      refuseFinished(run);
      run.renewLease();
      sendJson(response, 200, run.summary());
    },
    pausePipeline: ({ response, params }) => {
      const run = this.runOf(params);
      refuseUnholdable(run);
      run.renewLease();
      run.hold.pause();
      sendJson(response, 202, run.summary());
    },
    continuePipeline: ({ response, params }) => release(this.runOf(params), 'run', response),
    stepPipeline: ({ response, params }) => release(this.runOf(params), 'step', response),
    openApi: ({ response }) => sendJson(response, 200, openApiDocument()),
    pipelinesFeed: ({ response }) => streamPipelines(() => this.list(), response),
    listSources: ({ response }) => {
      const launcher = this.launcherFor('starts');
      sendJson(response, 200, listSources(launcher.roots, launcher.logsRoot));
    },
    webPage: ({ response }) => sendWebPage(response),
    webAsset: ({ response, params }) => sendWebAsset(response, params.file ?? ''),
    sessionState: ({ request, response }) => sendJson(response, 200, this.sessionState(request)),
    signIn: async ({ request, response }) => {
      const given = sessionRequest(await readJsonObject(request, this.options.maxBodyBytes), '');
      if (!given.ok) throw new HttpError(400, given.error);
      const { token } = this.options;
      if (token !== undefined) {
        if (!isToken(given.value.token, token)) throw new HttpError(403, 'that is not this server\'s token');
        response.setHeader('set-cookie', sessionCookie(this.sessions.open()));
      }
      sendJson(response, 200, { signedIn: true, tokenRequired: token !== undefined });
    },
  };

  private list(): { pipelines: unknown[] } {
    return { pipelines: [...this.runs.values()].map((run) => run.summary()) };
  }

  /** Whether the caller may use the API: always, on a server without a token (admit let it in); else by its bearer token or session. */
  private sessionState(request: http.IncomingMessage): { signedIn: boolean; tokenRequired: boolean } {
    const { token } = this.options;
    if (token === undefined) return { signedIn: true, tokenRequired: false };
    return { signedIn: this.sessions.holds(request) || carriesToken(request.headers.authorization, token), tokenRequired: true };
  }

  private async submit(launcher: Launcher, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const submission = parseSubmission(await readJsonObject(request, this.options.maxBodyBytes));
    const prepared = await prepareSubmission(submission, launcher, this.checker);
    const run = new ServedRun(prepared.spec);
    if (this.queue.hasRoom()) {
      // Listed (and holding its slot) while it is handed to Restate, which takes a moment.
      this.runs.set(run.spec.id, run);
      try {
        await prepared.launch(run);
      } catch (error) {
        this.runs.delete(run.spec.id);
        throw error;
      }
    } else {
      this.queue.enqueue(run, () => this.startQueued(launcher, run, () => prepared), true);
      // On disk before the client hears it is queued: the submission outlives this server.
      try {
        launcher.queued.add(prepared.queued);
      } catch (error) {
        this.queue.remove(run);
        throw error;
      }
      run.queue(() => this.queue.position(run));
    }
    this.track(run);
    response.setHeader('location', `/pipelines/${run.spec.id}`);
    sendJson(response, 201, { ...run.summary(), warnings: prepared.warnings });
  }

  /**
   * A queued run's turn: it takes its slot now. Prepared (an earlier server's submission is checked
   * again first; refused, it ends so, and is listed so after a restart), its record leaves the queue
   * and it launches; a launch that fails then fails the run.
   */
  private startQueued(launcher: Launcher, run: ServedRun, prepare: () => PreparedSubmission | Promise<PreparedSubmission>): void {
    run.dequeue();
    const { id } = run.spec;
    const failed = (error: Error): void => run.endUnstarted('fail', error.message);
    Promise.resolve()
      .then(prepare)
      .then(
        (prepared) => {
          launcher.queued.remove(id);
          prepared.launch(run).catch(failed);
        },
        (error: Error) => {
          const reason = `not started: ${error.message}`;
          run.endUnstarted('fail', reason);
          launcher.queued.end(id, { status: 'fail', reason, endedAt: new Date().toISOString() });
        },
      )
      .catch(failed);
  }

  /**
   * The answers an earlier server held for gates while every slot was taken: each run goes on with its
   * answer at its turn, ahead of the submissions (it was under way) — resumed, when it was walked here,
   * its gate getting the answer as it asks again. An answer whose run ended or is not served is spent.
   */
  private restoreHeldAnswers(launcher: Launcher): void {
    for (const held of launcher.queued.heldAnswers((message) => process.stderr.write(`attractor serve: ${message}\n`))) {
      const previous = this.runs.get(held.id);
      const answer = { questionId: held.questionId, answer: held.answer, asked: false, settled: () => launcher.queued.releaseAnswer(held.id) };
      if (previous?.status === 'running') {
        previous.holdAnswer(answer, () => this.queue.position(previous));
        this.queue.enqueue(previous, () => previous.deliverHeldAnswer(), false);
      } else if (previous?.status === 'interrupted' && launcher.walkers.kind === 'here') {
        const resumed = new ServedRun({ ...previous.spec, createdAt: previous.createdAt });
        const place = () => this.queue.position(resumed);
        resumed.queue(place);
        resumed.holdAnswer(answer, place);
        this.queue.enqueue(resumed, () => resumeWithHeldAnswer(previous, launcher, resumed), false);
        this.track(resumed);
      } else {
        answer.settled();
      }
    }
  }

  /**
   * The submissions an earlier server on this logs root left waiting, back in line in their order
   * (whatever --max-queued is now); those that ended before they started are listed as ended.
   */
  private restoreQueue(launcher: Launcher): void {
    for (const record of launcher.queued.restore((message) => process.stderr.write(`attractor serve: ${message}\n`))) {
      const run = new ServedRun(queuedSpec(record, launcher));
      if (record.ended) {
        run.endUnstarted(record.ended.status, record.ended.reason, record.ended.endedAt);
        this.runs.set(run.spec.id, run);
        continue;
      }
      this.queue.readmit(run, () => this.startQueued(launcher, run, () => prepareQueued(record, launcher, this.checker)));
      run.queue(() => this.queue.position(run));
      this.track(run);
    }
  }

  /** A resume may start a run now: a slot is free and no run waits for one; else 503 with Retry-After. */
  private admit(): void {
    if (!this.queue.hasRoom()) throw new HttpError(503, 'every slot of this server is taken (--max-runs) or runs wait for one; try again when one has finished');
  }

  /** Serves the run, stores its events once it ends, and lets the queue go on whenever it may leave a slot (at a gate, at its end). */
  private track(run: ServedRun): void {
    this.runs.set(run.spec.id, run);
    this.storeWhenFinished(run);
    const pump = (): void => void setImmediate(() => this.queue.pump());
    run.events.on((event) => {
      if (event.type === 'human:question') pump();
    });
    void run.finished.then(pump);
  }

  /** A finished run's events go to its run directory: what the server holds does not grow with the runs it has served. */
  private storeWhenFinished(run: ServedRun): void {
    const stored = run.log.storeWhenClosed(runFile(run.spec.logsRoot, 'servedEvents'));
    // Counted from the run's end, not before: `close` waits for the writes begun, never for a run on Restate that goes on.
    void run.finished.then(async () => {
      this.storing.add(stored);
      const failed = await stored;
      this.storing.delete(stored);
      if (failed) process.stderr.write(`attractor serve: pipeline ${run.spec.id}'s events stay in memory: ${failed.message}\n`);
    });
  }
}

/** Lets a held run go on, freely or to its next node; 409 when nothing holds it. */
function release(run: ServedRun, mode: ReleaseMode, response: http.ServerResponse): void {
  refuseUnholdable(run);
  run.renewLease();
  if (!run.hold.release(mode)) throw new HttpError(409, `pipeline ${run.spec.id} is not held (pause it, or set breakpoints)`);
  sendJson(response, 200, run.summary());
}

function refuseFinished(run: ServedRun): void {
  if (run.status === 'queued') throw new HttpError(409, `pipeline ${run.spec.id} waits for a worker slot: it has not started`);
  if (run.status !== 'running') throw new HttpError(409, `pipeline ${run.spec.id} already finished (${run.status})`);
}

/** A debugger holds only a run walked in this process. */
function refuseUnholdable(run: ServedRun): void {
  refuseFinished(run);
  if (!run.holdable) throw new HttpError(409, `pipeline ${run.spec.id} runs on Restate's workers: a debugger attached to this server cannot hold it`);
}

function latestCheckpoint(run: ServedRun) {
  const checkpoint = run.checkpoint;
  if (!checkpoint) throw new HttpError(404, `pipeline ${run.spec.id} has no checkpoint yet`);
  return checkpoint;
}
