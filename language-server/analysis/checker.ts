/**
 * Runs the engine's check off the request path. In the server a worker thread does it, so
 * completion and hover never queue behind a parse and lint of a large pipeline, and a check that
 * a newer version superseded before it started is simply dropped. Diagnostics come back first,
 * then what the server reads of the model without its graphs (provenance, node details); the
 * graphs stay with the worker until a request asks for them (HeldModel).
 */
import { deserialize } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import type { Diagnostic } from '../../engine/model/diagnostics';
import type { CheckInput, EngineCheck, ModelGraphs, ModelProvenance, NodeDetails, PipelineModel } from './document-analysis';
import { checkText } from './document-analysis';

/** Both resolve to undefined when a newer check of the same document superseded this one before it ran. */
export interface CheckHandle {
  readonly diagnostics: Promise<readonly Diagnostic[] | undefined>;
  readonly result: Promise<EngineCheck | undefined>;
}

export interface Checker {
  check(input: CheckInput): CheckHandle;
  /** The document closed: its model need not be kept. */
  forget(uri: string): void;
  /** No more checks: resolves once the checker has stopped. */
  dispose(): Promise<void>;
}

/** Same thread: for tests, tools and extra rules that cannot cross a thread boundary. */
export class InlineChecker implements Checker {
  check(input: CheckInput): CheckHandle {
    const result = checkText(input);
    return { diagnostics: Promise.resolve(result.diagnostics), result: Promise.resolve(result) };
  }

  forget(): void {}

  dispose(): Promise<void> {
    return Promise.resolve();
  }
}

/** Messages to the worker (check-worker.ts). */
export type CheckerRequest =
  | { readonly kind: 'check'; readonly id: number; readonly input: CheckInput }
  /** The graphs of the model check `checkId` of `uri` produced, if the worker still holds it. */
  | { readonly kind: 'graphs'; readonly id: number; readonly uri: string; readonly checkId: number }
  | { readonly kind: 'forget'; readonly uri: string }
  /** The server shuts down: the worker exits, leaving V8's compiled code of the checker for the next start (host/code-cache.ts). */
  | { readonly kind: 'stop' };

/** What the server reads of a model without its graphs. */
interface ModelSummary {
  readonly provenance: ModelProvenance;
  readonly nodeDetails: NodeDetails;
}

/** Messages back: per check, diagnostics first, then the model's summary; per graphs request, the graphs as v8-serialised bytes. */
export type CheckerResponse =
  | { readonly id: number; readonly kind: 'superseded' }
  | { readonly id: number; readonly kind: 'diagnostics'; readonly diagnostics: readonly Diagnostic[] }
  | { readonly id: number; readonly kind: 'model'; readonly model?: ModelSummary }
  | { readonly id: number; readonly kind: 'graphs'; readonly bytes?: ArrayBuffer };

interface PendingCheck {
  readonly input: CheckInput;
  diagnostics?: readonly Diagnostic[];
  readonly resolveDiagnostics: (diagnostics: readonly Diagnostic[] | undefined) => void;
  readonly resolveResult: (check: EngineCheck | undefined) => void;
}

/** A model whose graphs the worker holds: they cross (and are read) on the first `graphs()`, once. */
class HeldModel implements PipelineModel {
  constructor(
    private readonly fetched: { readonly fetch: () => Promise<ModelGraphs | undefined>; graphs?: Promise<ModelGraphs | undefined> },
    readonly provenance: ModelProvenance,
    readonly nodeDetails: NodeDetails,
  ) {}

  graphs(): Promise<ModelGraphs | undefined> {
    this.fetched.graphs ??= this.fetched.fetch();
    return this.fetched.graphs;
  }

  as(provenance: ModelProvenance): HeldModel {
    return new HeldModel(this.fetched, provenance, this.nodeDetails);
  }
}

/** How long a stopping worker may take to write its compile cache before it is terminated. */
const STOP_GRACE_MS = 1000;

export class WorkerChecker implements Checker {
  private readonly pending = new Map<number, PendingCheck>();
  private readonly pendingGraphs = new Map<number, (graphs: ModelGraphs | undefined) => void>();
  private nextId = 1;
  private failed = false;

  /** `worker` runs check-worker.ts (startCheckerWorker). */
  constructor(private readonly worker: Worker) {
    this.worker.unref();
    this.worker.on('message', (response: CheckerResponse) => this.receive(response));
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
    this.post({ kind: 'check', id, input });
    return { diagnostics, result };
  }

  forget(uri: string): void {
    if (!this.failed) this.post({ kind: 'forget', uri });
  }

  async dispose(): Promise<void> {
    if (this.failed) return;
    this.failed = true;
    // Shutting down: what is still to check is dropped, not checked on this thread as the worker exits.
    this.answerPending(() => undefined);
    const exited = new Promise<boolean>((resolve) => this.worker.once('exit', () => resolve(true)));
    this.post({ kind: 'stop' });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STOP_GRACE_MS)));
    if (!(await Promise.race([exited, late]))) await this.worker.terminate();
    clearTimeout(timer);
  }

  private post(request: CheckerRequest): void {
    this.worker.postMessage(request);
  }

  private fetchGraphs(uri: string, checkId: number): Promise<ModelGraphs | undefined> {
    if (this.failed) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pendingGraphs.set(id, resolve);
      this.post({ kind: 'graphs', id, uri, checkId });
    });
  }

  private receive(response: CheckerResponse): void {
    if (response.kind === 'graphs') {
      const resolve = this.pendingGraphs.get(response.id);
      this.pendingGraphs.delete(response.id);
      resolve?.(response.bytes ? (deserialize(new Uint8Array(response.bytes)) as ModelGraphs) : undefined);
      return;
    }
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
      case 'model': {
        this.pending.delete(response.id);
        const { uri } = job.input;
        const model = response.model && new HeldModel({ fetch: () => this.fetchGraphs(uri, response.id) }, response.model.provenance, response.model.nodeDetails);
        job.resolveResult({ diagnostics: job.diagnostics ?? [], ...(model ? { model } : {}) });
        break;
      }
    }
  }

  /** If the worker dies, checks continue on this thread rather than never answering; the graphs it held are gone. */
  private fallBack(): void {
    if (this.failed && this.pending.size === 0 && this.pendingGraphs.size === 0) return;
    this.failed = true;
    this.answerPending(checkSafely);
  }

  /** Answers every check still pending with `answer` (undefined: superseded), and every graphs request with none. */
  private answerPending(answer: (input: CheckInput) => EngineCheck | undefined): void {
    for (const resolve of this.pendingGraphs.values()) resolve(undefined);
    this.pendingGraphs.clear();
    for (const [id, job] of this.pending) {
      this.pending.delete(id);
      const check = answer(job.input);
      job.resolveDiagnostics(check?.diagnostics);
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
