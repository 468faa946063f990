// Says what the graph view is doing and what it shows: elapsed time while Graphviz lays out in its
// worker (the page stays responsive meanwhile), and which part of a graph too large to lay out whole
// is on screen.
import type { ViewScope } from './document-renderer';
import { WHOLE_GRAPH_MAX_NODES } from './document-renderer';
import { el } from './dom';

const TICK_MS = 500;
const count = (n: number): string => n.toLocaleString('en-US');

export class LayoutStatus {
  readonly root = el('div', { class: 'layout-status', role: 'status', hidden: true });
  private readonly progress = el('span', { class: 'layout-progress' });
  private readonly scope = el('span', { class: 'layout-scope' });
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor() {
    this.root.append(this.progress, this.scope);
  }

  layingOut(nodes: number): void {
    clearInterval(this.ticker);
    const started = performance.now();
    const show = () => {
      this.progress.textContent = `Laying out ${count(nodes)} nodes… ${((performance.now() - started) / 1000).toFixed(1)} s`;
    };
    show();
    this.ticker = setInterval(show, TICK_MS);
    this.progress.hidden = false;
    this.root.hidden = false;
  }

  /** The layout ended; `scope` is what is on screen now. */
  done(scope: ViewScope): void {
    clearInterval(this.ticker);
    this.progress.hidden = true;
    this.progress.textContent = '';
    this.scope.hidden = scope.kind === 'whole';
    this.scope.textContent = scope.kind === 'whole' ? '' : describe(scope);
    this.root.hidden = scope.kind === 'whole';
  }
}

function describe(scope: Extract<ViewScope, { kind: 'neighbourhood' }>): string {
  const why = scope.reason === 'size' ? `Graphviz in the view lays out at most ${count(WHOLE_GRAPH_MAX_NODES)} nodes at once` : 'laying out the whole graph overflowed Graphviz\u2019s stack';
  return `Showing the ${count(scope.shown.size)} nodes nearest to ${scope.focus} of ${count(scope.total)} (${why}). The view follows the active node and the selection; dashed nodes have edges to nodes not shown.`;
}
