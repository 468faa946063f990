// The graph view's layout worker: Graphviz runs here, off the page thread, so that the page keeps
// answering (progress, pan, highlights) while a big graph lays out. Bundled into the page as a string
// (webview/layout-worker-source.ts) and started from a blob.
import { layoutSvg } from './graphviz';
import type { LayoutReply, LayoutRequest } from './layout-messages';

interface WorkerScope {
  onmessage: ((event: MessageEvent<LayoutRequest>) => void) | null;
  postMessage(reply: LayoutReply): void;
}

const scope = globalThis as unknown as WorkerScope;

scope.onmessage = (event) => void layout(event.data);

async function layout({ id, dot, engine }: LayoutRequest): Promise<void> {
  try {
    scope.postMessage({ id, ok: true, svg: await layoutSvg(dot, engine) });
  } catch (error) {
    // Graphviz recurses along long paths; past the thread's stack it fails with a RangeError.
    scope.postMessage({ id, ok: false, error: error instanceof Error ? error.message : String(error), stackOverflow: error instanceof RangeError });
  }
}
