import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRecord } from '../engine/model/json';
import { HttpError } from '../host/protocol/serve-api';

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  response.end(text);
}

export function sendError(response: ServerResponse, error: HttpError): void {
  sendJson(response, error.status, { error: error.message, ...error.details });
}

/**
 * The request body parsed as JSON, at most `limit` bytes: a larger body is refused with 413 as soon
 * as it is announced or read past the limit, anything but a JSON object with 400.
 */
export async function readJsonObject(request: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const announced = Number(request.headers['content-length']);
  if (Number.isFinite(announced) && announced > limit) throw tooLarge(limit);
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, `expected content-type application/json, got "${type}"`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new HttpError(400, `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw new HttpError(400, 'the body must be a JSON object');
  return value;
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `the body exceeds ${limit} bytes`);
}

/** An SSE comment this often keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

/** Starts a `text/event-stream` answer with its heartbeat; the returned function stops the heartbeat. */
export function openEventStream(response: ServerResponse): () => void {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  response.flushHeaders();
  const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
  return () => clearInterval(heartbeat);
}
