// The checker worker (dist/language-server-checker.js, loaded by check-worker-entry.ts): checks documents in arrival order, but a
// request superseded by a newer one for the same document before it starts is answered as such.
// It keeps each open document's newest model and sends its graphs only when asked.
import { serialize } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import type { CheckerRequest, CheckerResponse } from './checker';
import type { LocalModel } from './document-analysis';
import { checkText } from './document-analysis';

type CheckRequest = Extract<CheckerRequest, { kind: 'check' }>;

const queue: CheckRequest[] = [];
let draining = false;
/** Per document, the newest model a check produced and that check's id (a check without one keeps the previous). */
const held = new Map<string, { readonly checkId: number; readonly model: LocalModel }>();

function post(response: CheckerResponse, transfer: ArrayBuffer[] = []): void {
  parentPort?.postMessage(response, transfer);
}

/** The graphs as bytes in an ArrayBuffer of their own, which moves to the main thread without a copy. */
function serializeGraphs(model: LocalModel): ArrayBuffer {
  const buffer = serialize({ parsed: model.parsed, graph: model.graph });
  const bytes = new ArrayBuffer(buffer.byteLength);
  new Uint8Array(bytes).set(buffer);
  return bytes;
}

function drain(): void {
  const request = queue.shift();
  if (!request) {
    draining = false;
    return;
  }
  const { id, input } = request;
  if (queue.some((later) => later.input.uri === input.uri)) post({ id, kind: 'superseded' });
  else {
    // checkText never throws (the engine reports problems as diagnostics), so each request gets both messages.
    const check = checkText(input);
    post({ id, kind: 'diagnostics', diagnostics: check.diagnostics });
    const model = input.diagnosticsOnly ? undefined : check.model;
    if (model) held.set(input.uri, { checkId: id, model });
    post({ id, kind: 'model', ...(model ? { model: { provenance: model.provenance, nodeDetails: model.nodeDetails } } : {}) });
  }
  // Yield between checks so requests that arrived meanwhile can supersede queued work.
  setImmediate(drain);
}

parentPort?.on('message', (request: CheckerRequest) => {
  switch (request.kind) {
    case 'check':
      queue.push(request);
      if (!draining) {
        draining = true;
        setImmediate(drain);
      }
      break;
    case 'graphs': {
      const kept = held.get(request.uri);
      const bytes = kept?.checkId === request.checkId ? serializeGraphs(kept.model) : undefined;
      post({ id: request.id, kind: 'graphs', ...(bytes ? { bytes } : {}) }, bytes ? [bytes] : []);
      break;
    }
    case 'forget':
      held.delete(request.uri);
      // Checks of the closed document still queued would hold a model nobody forgets again.
      for (const queued of queue.filter((q) => q.input.uri === request.uri)) {
        queue.splice(queue.indexOf(queued), 1);
        post({ id: queued.id, kind: 'superseded' });
      }
      break;
    case 'stop':
      // An exit, not a termination: the thread's exit handlers run, and write the compile cache.
      process.exit();
  }
});
