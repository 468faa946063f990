// Lays out DOT with Graphviz compiled to WebAssembly. The module is loaded once, on first use.
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import type { LayoutEngine } from './protocol';

let graphviz: Promise<Graphviz> | undefined;

export async function layoutSvg(dot: string, engine: LayoutEngine): Promise<string> {
  graphviz ??= Graphviz.load();
  return (await graphviz).layout(dot, 'svg', engine);
}
