/**
 * Runs the engine's check off the request path. In the server a worker thread does it, so
 * completion and hover never queue behind a parse and lint of a large pipeline, and a check that
 * a newer version superseded before it started is simply dropped. Diagnostics come back first,
 * as a small message, so they are published before the (much larger) model crosses over; the model
 * crosses as bytes, read on this thread only when needed (DeferredModel).
 */
import { Worker } from 'node:worker_threads';
import type { Diagnostic } from '../../engine/model/diagnostics';
import type { CheckInput, EngineCheck, SerializedModel } from './document-analysis';
import { checkText, DeferredModel } from './document-analysis';
import { CHECKER_HEAP_MB, CHECKER_YOUNG_MB } from '../memory-limits';

/** Both resolve to undefined when a newer check of the same document superseded this one before it ran. */
export interface CheckHandle {
  readonly diagnostics: Promise<readonly Diagnostic[] | undefined>;
  readonly result: Promise<EngineCheck | undefined>;
}

export interface Checker {
  check(input: CheckInput): CheckHandle;
  dispose(): void;
}

/** Same thread: for tests, tools and extra rules that cannot cross a thread boundary. */
export class InlineChecker implements Checker {
  check(input: CheckInput): CheckHandle {
    const result = checkText(input);
    return { diagnostics: Promise.resolve(result.diagnostics), result: Promise.resolve(result) };
  }

  dispose(): void {}
}

/** Messages to the worker and back (check-worker.ts): per request, diagnostics first, then the model. */
export type CheckRequest = { readonly id: number; readonly input: CheckInput };
export type CheckResponse =
  | { readonly id: number; readonly kind: 'superseded' }
  | { readonly id: number; readonly kind: 'diagnostics'; readonly diagnostics: readonly Diagnostic[] }
  | { readonly id: number; readonly kind: 'model'; readonly model?: SerializedModel };

interface PendingCheck {
  readonly input: CheckInput;
  diagnostics?: readonly Diagnostic[];
  readonly resolveDiagnostics: (diagnostics: readonly Diagnostic[] | undefined) => void;
  readonly resolveResult: (check: EngineCheck | undefined) => void;
}

export class WorkerChecker implements Checker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, PendingCheck>();
  private nextId = 1;
  private failed = false;

  constructor(workerPath: string) {
    // Past its cap the worker dies (ERR_WORKER_OUT_OF_MEMORY) and checks go on on this thread (fallBack).
    this.worker = new Worker(workerPath, { resourceLimits: { maxOldGenerationSizeMb: CHECKER_HEAP_MB, maxYoungGenerationSizeMb: CHECKER_YOUNG_MB } });
    this.worker.unref();
    this.worker.on('message', (response: CheckResponse) => this.receive(response));
    this.worker.on('error', () => this.fallBack());
    this.worker.on('exit', () => this.fallBack());
  }

  check(input: CheckInput): CheckHandle {
    if (this.failed) return new InlineChecker().check(input);
    const id = this.nextId++;
    let resolveDiagnostics: PendingCheck['resolveDiagnostics'] = () => {};
    let resolveResult: PendingCheck['resolveResult'] = () => {};
    const diagnostics = new Promise<readonly Diagnostic[] | undefined>((resolve) => (resolveDiagnostics = resolve));
    const result = new Promise<EngineCheck | undefined>((resolve) => (resolveResult = resolve));
    this.pending.set(id, { input, resolveDiagnostics, resolveResult });
    this.worker.postMessage({ id, input } satisfies CheckRequest);
    return { diagnostics, result };
  }

  dispose(): void {
    this.failed = true;
    void this.worker.terminate();
  }

  private receive(response: CheckResponse): void {
    const job = this.pending.get(response.id);
    if (!job) return;
    switch (response.kind) {
      case 'superseded':
        this.pending.delete(response.id);
        job.resolveDiagnostics(undefined);
        job.resolveResult(undefined);
        break;
      case 'diagnostics':
        job.diagnostics = response.diagnostics;
        job.resolveDiagnostics(response.diagnostics);
        break;
      case 'model':
        this.pending.delete(response.id);
        job.resolveResult({ diagnostics: job.diagnostics ?? [], ...(response.model ? { model: DeferredModel.from(response.model) } : {}) });
        break;
    }
  }

  /** If the worker dies, checks continue on this thread rather than never answering. */
  private fallBack(): void {
    if (this.failed && this.pending.size === 0) return;
    this.failed = true;
    for (const [id, job] of this.pending) {
      this.pending.delete(id);
      const check = checkSafely(job.input);
      job.resolveDiagnostics(check.diagnostics);
      job.resolveResult(check);
    }
  }
}

/** Checking on this thread must not take the server down, whatever the text. */
function checkSafely(input: CheckInput): EngineCheck {
  try {
    return checkText(input);
  } catch (error) {
    return { diagnostics: [{ rule: 'internal_error', severity: 'error', message: `The checker failed on this text: ${error instanceof Error ? error.message : String(error)}` }] };
  }
}
