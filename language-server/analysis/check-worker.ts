// Worker thread entry (dist/language-server-worker.js): checks documents in arrival order, but a
// request superseded by a newer one for the same document before it starts is answered empty.
import { parentPort } from 'node:worker_threads';
import type { CheckRequest, CheckResponse } from './checker';
import { checkText } from './document-analysis';

const queue: CheckRequest[] = [];
let draining = false;

function drain(): void {
  const request = queue.shift();
  if (!request) {
    draining = false;
    return;
  }
  const superseded = queue.some((later) => later.input.uri === request.input.uri);
  let response: CheckResponse;
  if (superseded) response = { id: request.id };
  else {
    try {
      response = { id: request.id, check: checkText(request.input) };
    } catch (error) {
      response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
  }
  parentPort?.postMessage(response);
  // Yield between checks so requests that arrived meanwhile can supersede queued work.
  setImmediate(drain);
}

parentPort?.on('message', (request: CheckRequest) => {
  queue.push(request);
  if (!draining) {
    draining = true;
    setImmediate(drain);
  }
});
