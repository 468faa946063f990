// Graph view costs: laying out 50-, 500-, 2,000- and 5,000-node pipelines with WASM Graphviz (in Node
// and in headless Chromium, inside the real webview) against native `dot -Tsvg`, and the latency of one
// graphState highlight step in Chromium, which must stay under a frame (16 ms) with no re-layout.
// Above WHOLE_GRAPH_MAX_NODES the view shows a neighbourhood: its 5,000-node figure is the time to
// that picture, beside native dot laying out the whole graph.
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { parseDot } from '../engine/parse/dot-parser';
import { generatePipeline } from '../test/webview/generated-pipeline';
import { startHarness } from '../test/webview/harness';
import { WHOLE_GRAPH_MAX_NODES } from '../webview/document-renderer';
import type { GraphStateMessage } from '../host/protocol/webview';
import { buildRenderDot } from '../engine/model/render-dot';
import { medianMs, type BenchReport } from './report';

const SIZES = [50, 500, 2000, 5000];
const HIGHLIGHT_STEPS = 60;

const runsFor = (nodes: number) => (nodes > WHOLE_GRAPH_MAX_NODES ? { runs: 1, warmup: 0 } : nodes >= 2000 ? { runs: 3, warmup: 1 } : { runs: 5, warmup: 1 });

function renderDotFor(nodes: number): string {
  const { graph } = parseDot(generatePipeline(nodes));
  if (!graph) throw new Error('the generated pipeline does not parse');
  return buildRenderDot(graph).dot;
}

/** A run walking the chain: each step marks one more node visited, moves the active node and the current edge. */
function runStates(nodes: number, steps: number): GraphStateMessage[] {
  const states: GraphStateMessage[] = [];
  const visited: GraphStateMessage['nodes'] = {};
  const taken: Array<{ index: number; status: 'success' | 'fail' }> = [];
  for (let step = 0; step < steps; step++) {
    const id = step === 0 ? 'start' : `n${(step - 1) % (nodes - 2)}`;
    const previous = visited[id];
    Object.assign(visited, { [id]: { status: step % 9 === 8 ? 'fail' : 'success', visits: (previous?.visits ?? 0) + 1, iteration: Math.floor(step / 20) } });
    taken.push({ index: step, status: step % 9 === 8 ? 'fail' : 'success' });
    states.push({ type: 'graphState', runStatus: 'running', iteration: Math.floor(step / 20), activeNode: id, currentEdge: step, nodes: { ...visited, [id]: { status: 'running', visits: (previous?.visits ?? 0) + 1, iteration: 0 } }, takenEdges: [...taken] });
  }
  return states;
}

async function nodeFigures(figures: Record<string, number | string>): Promise<void> {
  const graphviz = await Graphviz.load();
  const hasDot = !spawnSync('dot', ['-V']).error;
  for (const nodes of SIZES) {
    const dot = renderDotFor(nodes);
    const { runs, warmup } = runsFor(nodes);
    figures[`WASM Graphviz in Node, ${nodes} nodes (ms)`] = await medianMs(() => graphviz.layout(dot, 'svg', 'dot'), runs, warmup).catch((error: unknown) => `fails: ${error instanceof Error ? error.message : String(error)}`);
    if (hasDot) figures[`native dot -Tsvg incl. process start, ${nodes} nodes (ms)`] = await medianMs(() => spawnSync('dot', ['-Tsvg'], { input: dot, maxBuffer: 1 << 30 }), runs, warmup);
    figures[`parse + render DOT (our side), ${nodes} nodes (ms)`] = await medianMs(() => renderDotFor(nodes), runs, warmup);
  }
  if (!hasDot) figures['native dot -Tsvg'] = 'not measured: Graphviz is not installed (apt-get install graphviz)';
}

async function chromiumFigures(figures: Record<string, number | string>): Promise<void> {
  const harness = await startHarness();
  try {
    for (const nodes of SIZES) {
      const view = await harness.open();
      const text = generatePipeline(nodes);
      const { runs, warmup } = runsFor(nodes);
      for (let i = 0; i < runs + warmup; i++) await view.showDocument(i % 2 === 0 ? text : `${text}\n`);
      const renders = await view.page.evaluate(() => performance.getEntriesByName('attractor:render').map((entry) => entry.duration));
      const timed = renders.slice(warmup).sort((a, b) => a - b);
      const shown = await view.page.locator('.graph-stage g.node').count();
      const what = shown < nodes ? `, graceful view: the ${shown}-node neighbourhood of the start node` : '';
      figures[`webview render in Chromium (parse+WASM layout in its worker+sanitise+insert), ${nodes} nodes${what} (ms)`] = Number((timed[Math.floor(timed.length / 2)] ?? 0).toFixed(1));

      if (nodes < 500) {
        await view.page.close();
        continue;
      }
      const renderedVersion = await view.page.getAttribute('body', 'data-rendered-version');
      const latencies = await view.page.evaluate((states) => {
        const svg = document.querySelector('.graph-stage svg');
        const out: number[] = [];
        for (const state of states) {
          const start = performance.now();
          // Synchronous dispatch, then a forced style and layout flush: validation, class toggles,
          // badge creation and the browser's style recalculation are all inside the timing.
          window.dispatchEvent(new MessageEvent('message', { data: state }));
          document.body.getBoundingClientRect();
          out.push(performance.now() - start);
        }
        if (document.querySelector('.graph-stage svg') !== svg) throw new Error('a highlight step replaced the SVG');
        return out;
      }, runStates(nodes, HIGHLIGHT_STEPS));
      if ((await view.page.getAttribute('body', 'data-rendered-version')) !== renderedVersion) throw new Error('a highlight step triggered a re-render');
      latencies.sort((a, b) => a - b);
      figures[`highlight step in Chromium, ${nodes} nodes, median (ms)`] = Number((latencies[Math.floor(latencies.length / 2)] ?? 0).toFixed(2));
      figures[`highlight step in Chromium, ${nodes} nodes, p95 (ms)`] = Number((latencies[Math.floor(latencies.length * 0.95)] ?? 0).toFixed(2));
      await view.page.close();
    }
  } finally {
    await harness.close();
  }
}

export default async function bench(): Promise<BenchReport[]> {
  // Timings on a shared 2-core machine swing with its load; the figure says how busy it was.
  const layout: Record<string, number | string> = { 'machine load average (1 min) at start': Number(os.loadavg()[0]?.toFixed(1)) };
  await nodeFigures(layout);
  const chromium: Record<string, number | string> = {};
  await chromiumFigures(chromium);
  return [
    { name: 'webview: layout, WASM Graphviz vs native dot', figures: layout, notes: 'generated pipelines (test/webview/generated-pipeline.ts): a chain with side branches and a loop_restart back edge every 10 stages; dot engine' },
    { name: 'webview: in Chromium', figures: chromium, notes: 'headless Chromium (test/browser.ts: Debian\'s when installed, else @sparticuz/chromium) via playwright-core; a highlight step is one graphState message (validation + class toggles + badges + style/layout flush), target < 16 ms, no re-layout' },
  ];
}
