import { parseDot } from '../engine/parse/dot-parser';
// The graph view's render DOT, so the server's picture has the same shapes, labels and element ids.
import { quote } from '../engine/model/dot-text';
import { buildRenderDot } from '../engine/model/render-dot';
import type { NodeProgress } from './served-run';

const FILL: Readonly<Record<NodeProgress, string>> = {
  running: '#fff59d',
  success: '#c8e6c9',
  partial_success: '#dcedc8',
  retry: '#ffe0b2',
  fail: '#ffcdd2',
  skipped: '#eeeeee',
};

type Layout = (dot: string) => string;
let layout: Promise<Layout> | undefined;

/** The pipeline as the graph view draws it (the parsed source), laid out by Graphviz (WASM), its nodes filled as the graph view shows them (the run's RunProjection). */
export async function renderRunSvg(source: string, sourcePath: string | undefined, progress: ReadonlyMap<string, NodeProgress>): Promise<string> {
  const { graph } = parseDot(source, sourcePath ? { sourcePath } : {});
  // A served run passed admission, so its source parses.
  if (!graph) throw new Error('the pipeline source no longer parses');
  const { dot } = buildRenderDot(graph);
  // A node statement after the graph's own adds attributes to that node (DOT merges them).
  const fills = [...progress].filter(([nodeId]) => graph.nodes.has(nodeId)).map(([nodeId, state]) => `  ${quote(nodeId)} [style=filled, fillcolor=${quote(FILL[state])}];`);
  const closing = dot.lastIndexOf('}');
  return (await graphvizLayout())(`${dot.slice(0, closing)}${fills.join('\n')}\n}`);
}

function graphvizLayout(): Promise<Layout> {
  layout ??= import('@hpcc-js/wasm-graphviz').then(async ({ Graphviz }) => {
    const graphviz = await Graphviz.load();
    return (dot: string) => graphviz.dot(dot, 'svg');
  });
  return layout;
}
