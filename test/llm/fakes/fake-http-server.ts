import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** What the scripted server answers to one request. */
export type Reply =
  | { readonly kind: 'json'; readonly status: number; readonly body: unknown; readonly headers?: Record<string, string> }
  | {
      readonly kind: 'sse';
      /** Raw SSE records, each written as its own chunk ("event: x\ndata: {...}\n\n"). */
      readonly records: readonly string[];
      /** Keep the connection open after the records (a stream that stalls mid-way). */
      readonly hang?: boolean;
    }
  /** The connection is dropped without an answer (a reset, as a server closing an idle keep-alive socket gives). */
  | { readonly kind: 'reset' };

export type Script = (request: RecordedRequest) => Reply;

/**
 * A provider stand-in on 127.0.0.1: answers each request with the next scripted reply and records
 * what the SDK actually sent. `serverMs` accumulates its own handling time (for benches).
 */
export class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  serverMs = 0;
  private readonly queue: Script[] = [];
  private readonly server: http.Server;
  private readonly open = new Set<http.ServerResponse>();
  private fallback: Script | undefined;

  /** `record: false` keeps no request bodies (benches: a long session's history would be measured as ours). */
  constructor(private readonly options: { readonly record?: boolean } = {}) {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Queues replies for the next requests, in order. */
  script(...steps: (Script | Reply)[]): this {
    for (const step of steps) this.queue.push(typeof step === 'function' ? step : () => step);
    return this;
  }

  /** Answers every request once the queue is empty (benches). */
  always(step: Script): this {
    this.fallback = step;
    return this;
  }

  /** Streams still held open by `hang` (the client has not gone away). */
  get openStreams(): number {
    return this.open.size;
  }

  get pending(): number {
    return this.queue.length;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const started = performance.now();
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      if (this.options.record !== false) this.requests.push(recorded);
      const step = this.queue.shift() ?? this.fallback;
      if (!step) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'fake server: no scripted reply left', type: 'server_error' } }));
        return;
      }
      const reply = step(recorded);
      if (reply.kind === 'reset') {
        req.socket.destroy();
      } else if (reply.kind === 'json') {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.body));
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const record of reply.records) res.write(record);
        if (reply.hang) {
          this.open.add(res);
          res.on('close', () => this.open.delete(res));
        } else res.end();
      }
      this.serverMs += performance.now() - started;
    });
  }
}
