import type http from 'node:http';
import { HttpError } from '../host/protocol/serve-api';
import { openEventStream } from './http-io';
import type { ServedRun } from './served-run';

/** The run's events as SSE from after `Last-Event-ID` (header, or `lastEventId` query for clients that cannot set it); ends after the last one. */
export function streamEvents(run: ServedRun, request: http.IncomingMessage, response: http.ServerResponse, url: URL): void {
  const lastId = parseLastEventId(request.headers['last-event-id'] ?? url.searchParams.get('lastEventId') ?? undefined);
  const stopHeartbeat = openEventStream(response);
  const unfollow = run.log.follow(
    lastId,
    // A stored log is read as fast as the client takes it; a live one as fast as the run goes.
    (entry) => (response.write(`id: ${entry.id}\nevent: ${entry.event.type}\ndata: ${entry.data}\n\n`) ? undefined : drained(response)),
    () => {
      stopHeartbeat();
      response.end();
    },
  );
  response.once('close', () => {
    stopHeartbeat();
    unfollow();
  });
}

/** Settles once the response has room again, or is gone. */
function drained(response: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

function parseLastEventId(header: string | string[] | undefined): number {
  if (header === undefined) return 0;
  const text = Array.isArray(header) ? header[0] : header;
  if (!/^\d{1,15}$/.test(text ?? '')) throw new HttpError(400, `Last-Event-ID must be an event id (a non-negative integer), got "${text}"`);
  return Number(text);
}
