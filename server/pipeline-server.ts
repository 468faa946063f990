import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Diagnostic } from '../engine/model/diagnostics';
import { preparePipeline } from '../engine/prepare';
import type { RunnerIdentity } from '../engine/runtime/run-directory';
import type { CodergenBackend } from '../engine/runtime/backend';
import { carriesToken } from './bearer-token';
import { renderRunSvg } from './graph-svg';
import { readJsonObject, sendError, sendJson } from './http-io';
import { launchServed } from './launch-served';
import { HttpError, parseAnswer, parseBreakpoints, parseSubmission } from '../host/protocol/serve-api';
import type { Roots } from './roots';
import { launchOnRestate } from './restate-relay';
import { ServedRun } from './served-run';
import type { ServedRunSpec } from './served-run';
import { refuseWebPages } from './web-pages';

export type ListenTarget = { readonly port: number; readonly host: string } | { readonly socket: string };

/** What a server needs to start pipelines that clients submit. */
export interface Launcher {
  readonly roots: Roots;
  /** Each run writes its run directory under it, named by the run's server id. */
  readonly logsRoot: string;
  /** Who walks the runs: this process (with a fresh backend and fan-out default for each run), or Restate's workers behind its ingress. */
  readonly walkers: { readonly kind: 'here'; readonly execution: () => Execution } | { readonly kind: 'restate'; readonly ingress: URL };
  /** Runs at once; a submission beyond it is refused (503), not queued. */
  readonly maxRunning: number;
  /** How long an attached debugger may go silent before the run is let go (ServedRunSpec). */
  readonly attachLeaseMs: number;
}

interface Execution {
  readonly backend: CodergenBackend;
  readonly defaultMaxParallel?: number;
  readonly runner?: RunnerIdentity;
}

export interface PipelineServerOptions {
  /** Absent on a server that only follows the runs given to `adopt` (`attractor run --serve`). */
  readonly launcher?: Launcher;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  readonly token?: string;
  readonly maxBodyBytes: number;
}

/** An SSE comment this often keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

type Route = (request: http.IncomingMessage, response: http.ServerResponse, url: URL) => Promise<void> | void;

/** Canonical §9.5: the engine as an HTTP service. Runs live in this process; their run directories are written as by `attractor run`. */
export class PipelineServer {
  private readonly runs = new Map<string, ServedRun>();
  private readonly server: http.Server;

  constructor(private readonly options: PipelineServerOptions) {
    this.server = http.createServer((request, response) => void this.handle(request, response));
  }

  /** A TCP port on `host`, or a Unix socket path; resolves to the URL clients use. */
  listen(where: ListenTarget): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      const listening = () => {
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
    await Promise.all([...this.runs.values()].filter((run) => run.status === 'running').map((run) => run.letGo()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    try {
      if (this.options.token !== undefined && !carriesToken(request.headers.authorization, this.options.token)) {
        response.setHeader('www-authenticate', 'Bearer');
        throw new HttpError(401, 'this server requires Authorization: Bearer <token>');
      }
      if (this.options.token === undefined) refuseWebPages(request);
      const url = new URL(request.url ?? '/', 'http://server');
      await this.route(request, url)(request, response, url);
    } catch (error) {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const refusal = error instanceof HttpError ? error : new HttpError(500, error instanceof Error ? error.message : String(error));
      // A refused upload may still be arriving: close the connection rather than read it.
      if (refusal.status === 413) response.setHeader('connection', 'close');
      sendError(response, refusal);
    }
  }

  private route(request: http.IncomingMessage, url: URL): Route {
    let segments: string[];
    try {
      segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      throw new HttpError(400, `malformed path ${url.pathname}`);
    }
    const [collection, id, action, qid, answer] = segments;
    if (collection !== 'pipelines' || segments.length > 5) throw new HttpError(404, `no such endpoint: ${url.pathname}`);
    const method = request.method ?? 'GET';
    const only = (allowed: string, route: Route): Route => {
      if (method !== allowed) throw new HttpError(405, `${url.pathname} accepts ${allowed}, not ${method}`);
      return route;
    };
    if (id === undefined) {
      if (method !== 'POST') return only('GET', (_req, res) => sendJson(res, 200, { pipelines: [...this.runs.values()].map((run) => run.summary()) }));
      const { launcher } = this.options;
      if (!launcher) throw new HttpError(405, 'this server follows one run; it starts no others');
      return (req, res) => this.submit(launcher, req, res);
    }
    const run = this.runs.get(id);
    if (!run) throw new HttpError(404, `no pipeline ${id}`);
    if (qid !== undefined && action !== 'questions') throw new HttpError(404, `no such endpoint: ${url.pathname}`);
    switch (action) {
      case undefined:
        return only('GET', (_req, res) => sendJson(res, 200, run.summary()));
      case 'events':
        return only('GET', (req, res, u) => streamEvents(run, req, res, u));
      case 'cancel':
        return only('POST', (_req, res) => {
          if (!run.cancel()) throw new HttpError(409, `pipeline ${id} already finished (${run.status})`);
          sendJson(res, 202, run.summary());
        });
      case 'graph':
        return only('GET', async (_req, res) => {
          const svg = await renderRunSvg(run.spec.source, run.spec.sourcePath, run.nodeProgress);
          res.writeHead(200, { 'content-type': 'image/svg+xml; charset=utf-8', 'cache-control': 'no-store' });
          res.end(svg);
        });
      case 'source':
        return only('GET', (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/vnd.graphviz; charset=utf-8', 'cache-control': 'no-store' });
          res.end(run.spec.source);
        });
      case 'questions':
        if (qid === undefined) return only('GET', (_req, res) => sendJson(res, 200, { questions: run.pendingQuestions() }));
        if (answer !== 'answer') throw new HttpError(404, `no such endpoint: ${url.pathname}`);
        return only('POST', async (req, res) => {
          const given = parseAnswer(await readJsonObject(req, this.options.maxBodyBytes));
          if (!(await run.answer(qid, given))) throw new HttpError(404, `no pending question ${qid} in pipeline ${id}`);
          sendJson(res, 200, { answered: qid });
        });
      case 'checkpoint':
        return only('GET', (_req, res) => sendJson(res, 200, latestCheckpoint(run)));
      case 'context':
        // Held, the boundary's live context (edits of the node that just finished included) is the current one.
        return only('GET', (_req, res) => sendJson(res, 200, run.hold.heldContext ?? latestCheckpoint(run).context));
      case 'breakpoints':
        return only('PUT', async (req, res) => {
          const breakpoints = parseBreakpoints(await readJsonObject(req, this.options.maxBodyBytes));
          refuseUnholdable(run);
          run.renewLease();
          run.hold.setBreakpoints(breakpoints);
          sendJson(res, 200, run.summary());
        });
      case 'lease':
        return only('POST', (_req, res) => {
          refuseFinished(run);
          run.renewLease();
          sendJson(res, 200, run.summary());
        });
      case 'pause':
        return only('POST', (_req, res) => {
          refuseUnholdable(run);
          run.renewLease();
          run.hold.pause();
          sendJson(res, 202, run.summary());
        });
      case 'continue':
      case 'step':
        return only('POST', (_req, res) => {
          refuseUnholdable(run);
          run.renewLease();
          if (!run.hold.release(action === 'step' ? 'step' : 'run')) throw new HttpError(409, `pipeline ${id} is not held (pause it, or set breakpoints)`);
          sendJson(res, 200, run.summary());
        });
      default:
        throw new HttpError(404, `no such endpoint: ${url.pathname}`);
    }
  }

  private async submit(launcher: Launcher, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const { roots } = launcher;
    const running = [...this.runs.values()].filter((run) => run.status === 'running').length;
    if (running >= launcher.maxRunning) {
      response.setHeader('retry-after', '10');
      throw new HttpError(503, `this server already runs ${running} pipeline(s), its limit (--max-runs); try again when one has finished`);
    }
    const submission = parseSubmission(await readJsonObject(request, this.options.maxBodyBytes));
    const cwd = roots.resolve(submission.cwd ?? roots.primary, roots.primary, 'cwd');
    if (!fs.statSync(cwd).isDirectory()) throw new HttpError(400, `cwd ${cwd} is not a directory`);
    const { pipeline } = submission;
    const { source, sourcePath } = pipeline.kind === 'path' ? readPipeline(roots.resolve(pipeline.path, cwd, 'pipeline')) : { source: pipeline.dot, sourcePath: undefined };
    const id = crypto.randomUUID();
    const spec = { id, source, ...(sourcePath ? { sourcePath } : {}), cwd, logsRoot: path.join(launcher.logsRoot, id), attachLeaseMs: launcher.attachLeaseMs };
    const { run, warnings } = launcher.walkers.kind === 'restate' ? await submitToRestate(spec, submission.params, roots, launcher.walkers.ingress) : launchHere(spec, submission.params, roots, launcher.walkers.execution());
    this.runs.set(id, run);
    response.setHeader('location', `/pipelines/${id}`);
    sendJson(response, 201, { ...run.summary(), warnings });
  }
}

type Launched = { readonly run: ServedRun; readonly warnings: readonly Diagnostic[] };

function launchHere(spec: ServedRunSpec, params: Readonly<Record<string, string>>, roots: Roots, { backend, defaultMaxParallel, runner }: Execution): Launched {
  const run = new ServedRun(spec);
  // Only the backend: a submitted run's gates are asked over HTTP alone.
  const admission = launchServed(run, { backend, params, files: roots.scope, ...(defaultMaxParallel === undefined ? {} : { defaultMaxParallel }), ...(runner ? { runner } : {}) });
  if (admission.kind === 'refused') throw new HttpError(422, admission.reason, { diagnostics: admission.diagnostics });
  return { run, warnings: admission.warnings };
}

/** Validated here (a refusal is this request's 422), walked by the workers. */
async function submitToRestate(spec: ServedRunSpec, params: Readonly<Record<string, string>>, roots: Roots, ingress: URL): Promise<Launched> {
  const prepared = preparePipeline(spec.source, { ...(spec.sourcePath ? { sourcePath: spec.sourcePath } : {}), params, files: roots.scope, mode: 'validate' });
  const errors = prepared.diagnostics.filter((d) => d.severity === 'error');
  if (!prepared.graph || errors.length > 0) throw new HttpError(422, `the pipeline has ${errors.length} error(s); it was not submitted`, { diagnostics: prepared.diagnostics });
  return { run: await launchOnRestate(spec, params, roots.dirs, ingress), warnings: prepared.diagnostics };
}

function readPipeline(file: string): { readonly source: string; readonly sourcePath: string } {
  try {
    return { source: fs.readFileSync(file, 'utf8'), sourcePath: file };
  } catch (error) {
    throw new HttpError(400, `cannot read ${file}: ${(error as Error).message}`);
  }
}

function refuseFinished(run: ServedRun): void {
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

/** The run's events as SSE from after `Last-Event-ID` (header, or `lastEventId` query for clients that cannot set it); ends after the last one. */
function streamEvents(run: ServedRun, request: http.IncomingMessage, response: http.ServerResponse, url: URL): void {
  const lastId = parseLastEventId(request.headers['last-event-id'] ?? url.searchParams.get('lastEventId') ?? undefined);
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  response.flushHeaders();
  const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
  const unfollow = run.log.follow(
    lastId,
    (entry) => response.write(`id: ${entry.id}\nevent: ${entry.event.type}\ndata: ${entry.data}\n\n`),
    () => {
      clearInterval(heartbeat);
      response.end();
    },
  );
  response.once('close', () => {
    clearInterval(heartbeat);
    unfollow();
  });
}

function parseLastEventId(header: string | string[] | undefined): number {
  if (header === undefined) return 0;
  const text = Array.isArray(header) ? header[0] : header;
  if (!/^\d{1,15}$/.test(text ?? '')) throw new HttpError(400, `Last-Event-ID must be an event id (a non-negative integer), got "${text}"`);
  return Number(text);
}
