// Worker thread entry (dist/language-server-worker.js): checks documents in arrival order, but a
// request superseded by a newer one for the same document before it starts is answered as such.
import { serialize } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import type { CheckRequest, CheckResponse } from './checker';
import type { PipelineModel, SerializedModel } from './document-analysis';
import { checkText } from './document-analysis';

const queue: CheckRequest[] = [];
let draining = false;

function post(response: CheckResponse, transfer: ArrayBuffer[] = []): void {
  parentPort?.postMessage(response, transfer);
}

/** The graphs as bytes in an ArrayBuffer of their own, which moves to the main thread without a copy. */
function serializeModel(model: PipelineModel): SerializedModel {
  const buffer = serialize({ parsed: model.parsed, graph: model.graph });
  const bytes = new ArrayBuffer(buffer.byteLength);
  new Uint8Array(bytes).set(buffer);
  return { bytes, provenance: model.provenance, nodeDetails: model.nodeDetails };
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
    const model = check.model ? serializeModel(check.model) : undefined;
    post({ id: request.id, kind: 'model', ...(model ? { model } : {}) }, model ? [model.bytes] : []);
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
