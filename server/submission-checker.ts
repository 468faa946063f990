import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { HttpError } from '../host/protocol/serve-api';
import type { CheckedSubmission, SubmissionCheck } from './submission-check';
import { checkSubmission } from './submission-check';

/** Validates submissions for the server. */
export interface SubmissionChecker {
  check(submission: SubmissionCheck): Promise<CheckedSubmission>;
  close(): Promise<void>;
}

export interface ValidationRequest {
  readonly id: number;
  readonly check: SubmissionCheck;
}

export type ValidationResponse = { readonly id: number; readonly checked: CheckedSubmission } | { readonly id: number; readonly error: string };

/** On the caller's thread: for a server that follows one local run, and where the worker bundle is missing. */
const inlineChecker: SubmissionChecker = {
  check: (submission) => Promise.resolve(checkSubmission(submission)),
  close: () => Promise.resolve(),
};

/** The heap one validation may use: a submission past it is refused (413), the server lives on. */
const VALIDATION_HEAP_MB = 2048;

/**
 * Validates on a worker thread: parsing and validating a large pipeline takes seconds, during which
 * the event loop must keep answering every other client. One thread, submissions in arrival order;
 * a thread that dies (out of memory) fails the submissions it held and is replaced for the next.
 */
class ThreadChecker implements SubmissionChecker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { readonly resolve: (checked: CheckedSubmission) => void; readonly reject: (error: Error) => void }>();
  private nextId = 1;

  constructor(private readonly workerPath: string) {}

  check(check: SubmissionCheck): Promise<CheckedSubmission> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.thread().postMessage({ id, check } satisfies ValidationRequest);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.workerPath, { resourceLimits: { maxOldGenerationSizeMb: VALIDATION_HEAP_MB } });
    // Waiting validations keep the server's requests open, not the process alive.
    worker.unref();
    worker.on('message', (response: ValidationResponse) => this.answer(response));
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', () => this.lost(worker, new Error('the validation thread stopped')));
    this.worker = worker;
    return worker;
  }

  private answer(response: ValidationResponse): void {
    const waiting = this.pending.get(response.id);
    this.pending.delete(response.id);
    if ('error' in response) waiting?.reject(new Error(response.error));
    else waiting?.resolve(response.checked);
  }

  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const outOfMemory = (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
    const refusal = outOfMemory ? new HttpError(413, `validating the pipeline needs more than the ${VALIDATION_HEAP_MB} MB the server gives one validation`) : error;
    for (const { reject } of this.pending.values()) reject(refusal);
    this.pending.clear();
  }
}

/** The checker of a server: a validation thread from `workerPath` (the bundle beside the CLI's), or this thread when there is none. */
export function submissionChecker(workerPath: string | undefined): SubmissionChecker {
  return workerPath && fs.existsSync(workerPath) ? new ThreadChecker(workerPath) : inlineChecker;
}
