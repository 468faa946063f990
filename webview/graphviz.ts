// Lays out DOT with Graphviz compiled to WebAssembly. The module is loaded on first use, and again
// after a failure: a trap (a stack overflow on a long path) can leave its memory inconsistent.
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import type { LayoutEngine } from '../host/protocol/webview';

let graphviz: Promise<Graphviz> | undefined;

export async function layoutSvg(dot: string, engine: LayoutEngine): Promise<string> {
  graphviz ??= Graphviz.load();
  try {
    return (await graphviz).layout(dot, 'svg', engine);
  } catch (error) {
    graphviz = undefined;
    throw error;
  }
}
