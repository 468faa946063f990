/**
 * Runs the engine's check off the request path. In the server a worker thread does it, so
 * completion and hover never queue behind a parse and lint of a large pipeline, and a check that
 * a newer version superseded before it started is simply dropped.
 */
import { Worker } from 'node:worker_threads';
import type { CheckInput, EngineCheck } from './document-analysis';
import { checkText } from './document-analysis';

export interface Checker {
  /** Undefined when a newer check of the same document superseded this one before it ran. */
  check(input: CheckInput): Promise<EngineCheck | undefined>;
  dispose(): void;
}

/** Same thread: for tests, tools and extra rules that cannot cross a thread boundary. */
export class InlineChecker implements Checker {
  async check(input: CheckInput): Promise<EngineCheck> {
    return checkText(input);
  }

  dispose(): void {}
}

/** Messages to the worker and back (check-worker.ts). */
export type CheckRequest = { readonly id: number; readonly input: CheckInput };
export type CheckResponse = { readonly id: number; readonly check?: EngineCheck; readonly error?: string };

export class WorkerChecker implements Checker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { input: CheckInput; resolve: (check: EngineCheck | undefined) => void }>();
  private nextId = 1;
  private failed = false;

  constructor(workerPath: string) {
    this.worker = new Worker(workerPath);
    this.worker.unref();
    this.worker.on('message', (response: CheckResponse) => {
      const job = this.pending.get(response.id);
      if (!job) return;
      this.pending.delete(response.id);
      job.resolve(response.error !== undefined ? internalError(response.error) : response.check);
    });
    this.worker.on('error', () => this.fallBack());
    this.worker.on('exit', () => this.fallBack());
  }

  check(input: CheckInput): Promise<EngineCheck | undefined> {
    if (this.failed) return Promise.resolve(checkText(input));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { input, resolve });
      this.worker.postMessage({ id, input } satisfies CheckRequest);
    });
  }

  dispose(): void {
    this.failed = true;
    void this.worker.terminate();
  }

  /** If the worker dies, checks continue on this thread rather than never answering. */
  private fallBack(): void {
    this.failed = true;
    for (const [id, job] of this.pending) {
      this.pending.delete(id);
      job.resolve(checkText(job.input));
    }
  }
}

/** The engine never throws by contract; if it does, the author sees it instead of silence. */
function internalError(message: string): EngineCheck {
  return { diagnostics: [{ rule: 'internal_error', severity: 'error', message: `The checker failed on this text: ${message}` }] };
}
