// Worker thread entry (dist/language-server-worker.js): checks documents in arrival order, but a
// request superseded by a newer one for the same document before it starts is answered as such.
import { parentPort } from 'node:worker_threads';
import type { CheckRequest, CheckResponse } from './checker';
import { checkText } from './document-analysis';

const queue: CheckRequest[] = [];
let draining = false;

function post(response: CheckResponse): void {
  parentPort?.postMessage(response);
}

function drain(): void {
  const request = queue.shift();
  if (!request) {
    draining = false;
    return;
  }
  if (queue.some((later) => later.input.uri === request.input.uri)) post({ id: request.id, kind: 'superseded' });
  else {
    // checkText never throws (the engine reports problems as diagnostics), so each request gets both messages.
    const check = checkText(request.input);
    post({ id: request.id, kind: 'diagnostics', diagnostics: check.diagnostics });
    post({ id: request.id, kind: 'model', ...(check.model ? { model: check.model } : {}) });
  }
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
