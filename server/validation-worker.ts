// Worker thread entry (dist/serve-validation-worker.js): validates the submissions of `attractor
// serve` in arrival order, so that the server's event loop keeps answering its other clients.
import { parentPort } from 'node:worker_threads';
import { checkSubmission } from './submission-check';
import type { ValidationRequest, ValidationResponse } from './submission-checker';

parentPort?.on('message', ({ id, check }: ValidationRequest) => {
  let response: ValidationResponse;
  try {
    response = { id, checked: checkSubmission(check) };
  } catch (error) {
    response = { id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(response);
});
