// A client for the `attractor serve` API (and `attractor run --serve`): what VS Code uses to list,
// follow and answer runs on a server. Node's http only; no vscode.
import http from 'node:http';
import https from 'node:https';
import { isRecord } from '../../engine/model/json';
import type { ContextValues } from '../../engine/runtime/context';
import type { GateReply } from '../../engine/runtime/interviewer';
import { answerBody, type HoldBreakpoints, type PendingQuestion, type PipelineSummary, type ReleaseMode, type ServedEvent } from '../protocol/serve-api';
import { SseReader } from '../protocol/sse-reader';
import type { Check } from '../protocol/guards';
import { contextValues, pipelineList, pipelineSummary, questionList } from '../protocol/serve-schemas';

/** Where a server listens: `http(s)://host:port` or `unix:/path/to.sock`; the token when it requires one. */
export interface ServerConnection {
  readonly url: string;
  readonly token?: string;
}

/** The server refused a request; `message` is its reason. */
export class ServeRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface StreamedEvent {
  readonly id: number;
  readonly event: ServedEvent;
}

export interface FollowOptions {
  /** Resume after this event id (0: from the first event). */
  readonly lastEventId?: number;
  /** Stops following; `follow` then resolves with 'stopped'. */
  readonly signal?: AbortSignal;
  /** Attempts to reconnect after a dropped stream before giving up (each resumes after the last event received). */
  readonly reconnects?: number;
  readonly reconnectDelayMs?: number;
}

type HttpMethod = 'GET' | 'POST' | 'PUT';

type Endpoint = { readonly kind: 'tcp'; readonly base: URL } | { readonly kind: 'socket'; readonly socketPath: string };

export class ServeClient {
  private readonly endpoint: Endpoint;

  constructor(private readonly connection: ServerConnection) {
    this.endpoint = parseEndpoint(connection.url);
  }

  get url(): string {
    return this.connection.url;
  }

  async list(): Promise<PipelineSummary[]> {
    return [...checked(pipelineList, await this.json('GET', '/pipelines'), 'GET /pipelines').pipelines];
  }

  async get(id: string): Promise<PipelineSummary> {
    return asSummary(await this.json('GET', pipelinePath(id)));
  }

  /** The DOT source the run walks. */
  async source(id: string): Promise<string> {
    return (await this.call('GET', `${pipelinePath(id)}/source`)).text;
  }

  async cancel(id: string): Promise<PipelineSummary> {
    return asSummary(await this.json('POST', `${pipelinePath(id)}/cancel`, {}));
  }

  async questions(id: string): Promise<PendingQuestion[]> {
    return [...checked(questionList, await this.json('GET', `${pipelinePath(id)}/questions`), 'GET …/questions').questions];
  }

  /** A person's answer (a timeout is the gate's own doing, never sent); rejects with status 404 when the question no longer waits (answered elsewhere, timed out, run over). */
  async answer(id: string, questionId: string, answer: GateReply): Promise<void> {
    await this.json('POST', `${pipelinePath(id)}/questions/${encodeURIComponent(questionId)}/answer`, answerBody(answer));
  }

  /** Replaces where the server holds the run for an attached debugger. */
  async setBreakpoints(id: string, breakpoints: HoldBreakpoints): Promise<PipelineSummary> {
    return asSummary(await this.json('PUT', `${pipelinePath(id)}/breakpoints`, { nodes: breakpoints.nodes, edges: breakpoints.edges }));
  }

  /** Says the attached debugger is still there (`attachLease` in the summary: how often it must). */
  async renewLease(id: string): Promise<PipelineSummary> {
    return asSummary(await this.json('POST', `${pipelinePath(id)}/lease`, {}));
  }

  /** Holds the run at its next node boundary. */
  async pause(id: string): Promise<PipelineSummary> {
    return asSummary(await this.json('POST', `${pipelinePath(id)}/pause`, {}));
  }

  /** Lets a held run go on: freely ('run'), or to its next node boundary ('step'); 409 when it is not held. */
  async release(id: string, mode: ReleaseMode): Promise<PipelineSummary> {
    return asSummary(await this.json('POST', `${pipelinePath(id)}/${mode === 'step' ? 'step' : 'continue'}`, {}));
  }

  /** The run's context: the held boundary's while held, else the latest checkpoint's. */
  async context(id: string): Promise<ContextValues> {
    return checked(contextValues, await this.json('GET', `${pipelinePath(id)}/context`), 'GET …/context');
  }

  /**
   * Every event of the run from after `lastEventId`, in order, each once, until the run is over
   * ('finished') or `signal` stops it ('stopped'). A dropped stream is reopened with Last-Event-ID.
   */
  async follow(id: string, onEvent: (streamed: StreamedEvent) => void, options: FollowOptions = {}): Promise<'finished' | 'stopped'> {
    const { signal, reconnects = 5, reconnectDelayMs = 1000 } = options;
    let lastEventId = options.lastEventId ?? 0;
    let failures = 0;
    const received = (streamed: StreamedEvent): void => {
      lastEventId = streamed.id;
      failures = 0;
      onEvent(streamed);
    };
    for (;;) {
      try {
        await this.stream(id, lastEventId, received, signal);
        // The server ends the stream after the run's last event; anything else (a proxy's timeout) ended it early.
        const { status } = await this.get(id);
        if (status !== 'running' && status !== 'queued') return 'finished';
      } catch (error) {
        if (signal?.aborted) return 'stopped';
        if (error instanceof ServeRequestError || ++failures > reconnects) throw error;
      }
      if (!(await pause(reconnectDelayMs, signal))) return 'stopped';
    }
  }

  private stream(id: string, lastEventId: number, onEvent: (streamed: StreamedEvent) => void, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const request = this.request('GET', `${pipelinePath(id)}/events`, { accept: 'text/event-stream', 'last-event-id': String(lastEventId) });
      const abort = (): void => void request.destroy(new Error('stopped following'));
      signal?.addEventListener('abort', abort, { once: true });
      const done = (error?: unknown): void => {
        signal?.removeEventListener('abort', abort);
        if (error === undefined) resolve();
        else reject(error);
      };
      request.on('error', done);
      request.on('response', (response) => {
        if (response.statusCode !== 200) return void readAll(response).then((text) => done(refusal(response.statusCode ?? 0, text)), done);
        response.setEncoding('utf8');
        const reader = new SseReader((message) => {
          try {
            onEvent(streamedEvent(message.id, message.data));
          } catch (error) {
            request.destroy(error instanceof Error ? error : new Error(String(error)));
          }
        });
        response.on('data', (chunk: string) => reader.push(chunk));
        response.on('end', () => done());
        response.on('error', done);
      });
      request.end();
    });
  }

  private async json(method: HttpMethod, path: string, body?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { text } = await this.call(method, path, body);
    const value: unknown = JSON.parse(text);
    if (!isRecord(value)) throw new ServeRequestError(502, `${method} ${path} answered ${text.slice(0, 80)}`);
    return value;
  }

  private call(method: HttpMethod, path: string, body?: Record<string, unknown>): Promise<{ text: string }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const request = this.request(method, path, payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
      request.on('error', reject);
      request.on('response', (response) => {
        readAll(response).then((text) => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve({ text });
          else reject(refusal(status, text));
        }, reject);
      });
      request.end(payload);
    });
  }

  private request(method: string, path: string, headers: Record<string, string>): http.ClientRequest {
    const auth = this.connection.token ? { authorization: `Bearer ${this.connection.token}` } : {};
    const options = { method, headers: { ...headers, ...auth } };
    if (this.endpoint.kind === 'socket') return http.request({ ...options, socketPath: this.endpoint.socketPath, path, host: 'localhost' });
    const target = new URL(path.replace(/^\//, ''), this.endpoint.base);
    return (target.protocol === 'https:' ? https : http).request(target, options);
  }
}

function parseEndpoint(text: string): Endpoint {
  if (text.startsWith('unix:')) {
    const socketPath = text.slice('unix:'.length);
    if (!socketPath) throw new Error('a unix: address names the socket, as in unix:/tmp/attractor.sock');
    return { kind: 'socket', socketPath };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`"${text}" is not a server address: give http://host:port, https://host:port or unix:/path/to.sock`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${text}": the server speaks http or https, not ${url.protocol}`);
  // Relative paths resolve under a base path (a server behind a proxy's prefix) only when it ends in '/'.
  return { kind: 'tcp', base: new URL(url.pathname.endsWith('/') ? url.href : `${url.href}/`) };
}

const pipelinePath = (id: string): string => `/pipelines/${encodeURIComponent(id)}`;

function readAll(response: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => resolve(text));
    response.on('error', reject);
  });
}

/** The server's `{"error": …}` as an error, or the status line's meaning when the body is something else. */
function refusal(status: number, text: string): ServeRequestError {
  let reason = text.trim().slice(0, 200) || http.STATUS_CODES[status] || 'no reason given';
  try {
    const body: unknown = JSON.parse(text);
    if (isRecord(body) && typeof body.error === 'string') reason = body.error;
  } catch {
    // not JSON: the text itself is the reason
  }
  return new ServeRequestError(status, `${status}: ${reason}`);
}

function asSummary(value: unknown): PipelineSummary {
  return checked(pipelineSummary, value, 'a pipeline summary');
}

/** An answer as the contract says it is (serve-schemas.ts, the checks the server's document is made of); 502 otherwise. */
function checked<T>(check: Check<T>, value: unknown, what: string): T {
  const result = check(value, '');
  if (!result.ok) throw new ServeRequestError(502, `${what}: the server's answer does not fit the API (${result.error})`);
  return result.value;
}

function streamedEvent(id: string | undefined, data: string): StreamedEvent {
  const event: unknown = JSON.parse(data);
  if (!/^\d+$/.test(id ?? '') || !isRecord(event) || typeof event.type !== 'string') throw new ServeRequestError(502, `not a run event: id ${id}, ${data.slice(0, 80)}`);
  return { id: Number(id), event: event as unknown as ServedEvent };
}

/** False when `signal` stopped the wait. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve(true);
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}
