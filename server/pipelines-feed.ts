import type http from 'node:http';
import { openEventStream } from './http-io';

/** How often the list is looked at for a change: the runs page's liveness, at the cost of one summary per run. */
const LOOK_EVERY_MS = 500;

/**
 * GET /events: the runs list as Server-Sent Events, a `pipelines` event with the whole list at once
 * and whenever it changed (a run started, moved on, asked a question, ended). The list is small
 * (the runs of one server); sending it whole keeps the page free of a second reducer.
 */
export function streamPipelines(list: () => unknown, response: http.ServerResponse): void {
  const stopHeartbeat = openEventStream(response);
  let last = '';
  const look = (): void => {
    const data = JSON.stringify(list());
    if (data === last) return;
    last = data;
    response.write(`event: pipelines\ndata: ${data}\n\n`);
  };
  look();
  const timer = setInterval(look, LOOK_EVERY_MS);
  response.once('close', () => {
    clearInterval(timer);
    stopHeartbeat();
  });
}
