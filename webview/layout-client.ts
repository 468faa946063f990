// The page's side of the layout worker. One layout at a time: a newer request ends the worker that
// is still laying out an older one (its result would be stale), and the next request starts a fresh one.
// A layout that misses its deadline, or that the user cancels, ends its worker the same way.
import type { LayoutReply, LayoutRequest } from './layout-messages';
import { layoutWorkerSource } from './layout-worker-source';
import type { LayoutEngine } from '../host/protocol/webview';

/** How long one layout may take: WASM Graphviz can take minutes on a 1,000-node graph with many crossings. */
export const LAYOUT_DEADLINE_MS = 10_000;

export type LayoutOutcome =
  | { readonly kind: 'laid-out'; readonly svg: string }
  | { readonly kind: 'failed'; readonly message: string; readonly stackOverflow: boolean }
  | { readonly kind: 'superseded' }
  /** Graphviz did not finish within LAYOUT_DEADLINE_MS. */
  | { readonly kind: 'timed-out' }
  | { readonly kind: 'cancelled' };

interface Pending {
  readonly id: number;
  readonly settle: (outcome: LayoutOutcome) => void;
}

export class LayoutClient {
  private worker: Worker | undefined;
  private scriptUrl: string | undefined;
  private pending: Pending | undefined;
  private nextId = 0;

  layout(dot: string, engine: LayoutEngine): Promise<LayoutOutcome> {
    if (this.pending) this.stop({ kind: 'superseded' });
    const worker = (this.worker ??= this.startWorker());
    const request: LayoutRequest = { id: ++this.nextId, dot, engine };
    return new Promise((settle) => {
      const deadline = setTimeout(() => this.stop({ kind: 'timed-out' }), LAYOUT_DEADLINE_MS);
      this.pending = {
        id: request.id,
        settle: (outcome) => {
          clearTimeout(deadline);
          settle(outcome);
        },
      };
      worker.postMessage(request);
    });
  }

  /** Ends the layout in progress, if any: it settles as cancelled. */
  cancel(): void {
    if (this.pending) this.stop({ kind: 'cancelled' });
  }

  private startWorker(): Worker {
    if (!layoutWorkerSource) throw new Error('the layout worker is not bundled (build with esbuild.mjs)');
    // VS Code serves the extension's files from another origin than the page's, and a worker must
    // be same-origin: the page starts it from a blob of the bundled script (CSP: worker-src blob:).
    this.scriptUrl ??= URL.createObjectURL(new Blob([layoutWorkerSource], { type: 'text/javascript' }));
    const worker = new Worker(this.scriptUrl, { name: 'attractor-layout' });
    worker.addEventListener('message', (event: MessageEvent<LayoutReply>) => {
      const reply = event.data;
      if (reply.id !== this.pending?.id) return;
      const { settle } = this.pending;
      this.pending = undefined;
      settle(reply.ok ? { kind: 'laid-out', svg: reply.svg } : { kind: 'failed', message: reply.error, stackOverflow: reply.stackOverflow });
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.stop({ kind: 'failed', message: `the layout worker stopped: ${event.message || 'it could not start'}`, stackOverflow: false });
    });
    return worker;
  }

  private stop(outcome: LayoutOutcome): void {
    this.worker?.terminate();
    this.worker = undefined;
    const pending = this.pending;
    this.pending = undefined;
    pending?.settle(outcome);
  }
}
