// `attractor serve` as a real process on 127.0.0.1, and the HTTP and SSE calls the tests make to it.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { bundledCli } from '../test-bundle';

/** A pipeline that builds, then waits at a human gate (Y: done, N: build again). */
export const gated = `digraph shipit {
  start [shape=Mdiamond]
  build [shape=parallelogram, tool_command="echo built > built.txt"]
  gate [shape=hexagon, label="Ship it?"]
  done [shape=Msquare]
  start -> build -> gate
  gate -> done [label="[Y] Yes"]
  gate -> build [label="[N] No"]
}`;

/** Waits at a gate first, so a test sets its breakpoints before any node it holds at has run. */
export const heldPipeline = `digraph held {
  start [shape=Mdiamond]
  ready [shape=hexagon, label="Go?"]
  build [shape=parallelogram, tool_command="echo built > built.txt"]
  check [shape=parallelogram, tool_command="echo checked > checked.txt"]
  done [shape=Msquare]
  start -> ready
  ready -> build [label="[G] Go"]
  build -> check
  check -> done
}`;

export interface Served {
  /** http://127.0.0.1:PORT, whatever the bind address. */
  readonly url: string;
  readonly stderr: () => string;
  /** False once the process has exited. */
  readonly alive: () => boolean;
  readonly stop: () => Promise<number | null>;
  /** SIGKILL: the server goes away without cancelling anything, as a crash or an OOM kill does. */
  readonly kill: () => Promise<void>;
}

export async function serve(cwd: string, ...args: string[]): Promise<Served> {
  return serveWith(cwd, {}, ...args);
}

/** How the server's process is started besides its arguments. */
export interface ServeProcess {
  /** Node's own flags, e.g. `--max-old-space-size=40`. */
  readonly nodeFlags?: readonly string[];
  /** The process's open-file limit (`ulimit -n`, soft and hard). */
  readonly openFiles?: number;
}

/** Each server's own state directory (its queue), never the user's: a test that restarts a server with its queue names one (--state-dir). */
function stateHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-serve-state-'));
}

export async function serveWith(cwd: string, how: ServeProcess, ...args: string[]): Promise<Served> {
  const node = [process.execPath, ...(how.nodeFlags ?? []), bundledCli(), 'serve', '--port', '0', ...args];
  const [command, ...argv] = how.openFiles === undefined ? node : ['/bin/sh', '-c', `ulimit -n ${how.openFiles} && exec "$@"`, 'sh', ...node];
  const child = spawn(command!, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_STATE_HOME: stateHome() } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on http:\/\/\S+:(\d+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const kill = () => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGKILL'))));
  return { url: `http://127.0.0.1:${port}`, stderr: () => stderr, alive: () => child.exitCode === null && child.signalCode === null, stop: () => stop(child), kill };
}

/** SIGTERM, and the exit code; a process already gone (killed: its `exit` has been emitted, with no code) answers at once. */
function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export async function call(url: string, init: { method?: string; body?: unknown; rawBody?: string; token?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...init.headers };
  const body = init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
}

export interface SseEvent {
  readonly id: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/**
 * Reads a pipeline's SSE stream until `until` accepts an event (then disconnects) or the server
 * ends the stream. Returns the events received.
 */
export function readEvents(url: string, options: { lastEventId?: number; until?: (event: SseEvent) => boolean } = {}): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const headers = options.lastEventId === undefined ? {} : { 'last-event-id': String(options.lastEventId) };
    const request = http.get(url, { headers }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`SSE answered ${response.statusCode}`));
      const events: SseEvent[] = [];
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map(block.split('\n').filter((line) => !line.startsWith(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
          if (!fields.has('data')) continue;
          const event = { id: Number(fields.get('id')), type: fields.get('event') ?? '', data: JSON.parse(fields.get('data') ?? '{}') as Record<string, unknown> };
          events.push(event);
          if (options.until?.(event)) {
            request.destroy();
            return resolve(events);
          }
        }
      });
      response.on('end', () => resolve(events));
      // The server went away mid-stream.
      response.on('error', reject);
      response.on('close', () => response.complete || reject(new Error(`the event stream was cut after ${events.length} event(s)`)));
    });
    request.on('error', reject);
  });
}

/** One JSON request over plain node:http (a Unix socket, or a Host header fetch would not send). */
export function rawCall(options: http.RequestOptions, body?: unknown, { chunked = false } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request({ method: text === undefined ? 'GET' : 'POST', ...options, headers: { ...(text === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers } }, (response) => {
      let data = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (data += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(data) as Record<string, unknown> }));
    });
    request.on('error', reject);
    // A body in two writes goes out chunked, with no Content-Length announcing its size.
    if (chunked && text !== undefined) request.write(text.slice(0, 10));
    request.end(chunked ? text?.slice(10) : text);
  });
}
