// Says what the graph view is doing and what it shows: elapsed time while Graphviz lays out in its
// worker (the page stays responsive meanwhile) with a Cancel button, and which part of a graph too
// large to lay out whole is on screen, and why.
import type { ViewScope } from './document-renderer';
import { WHOLE_GRAPH_MAX_NODES } from './document-renderer';
import { el } from './dom';
import { LAYOUT_DEADLINE_MS } from './layout-client';

const TICK_MS = 500;
const count = (n: number): string => n.toLocaleString('en-US');

export class LayoutStatus {
  readonly root = el('div', { class: 'layout-status', role: 'status', hidden: true });
  private readonly progress = el('span', { class: 'layout-progress' });
  private readonly cancel = el('button', { class: 'layout-cancel', type: 'button', title: 'Stop this layout and show the neighbourhood of the active or selected node' }, ['Cancel']);
  private readonly scope = el('span', { class: 'layout-scope' });
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(onCancel: () => void) {
    this.cancel.addEventListener('click', onCancel);
    this.root.append(this.progress, this.cancel, this.scope);
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
    this.cancel.hidden = false;
    this.root.hidden = false;
  }

  /** The layout ended; `scope` is what is on screen now. */
  done(scope: ViewScope): void {
    clearInterval(this.ticker);
    this.progress.hidden = true;
    this.progress.textContent = '';
    this.cancel.hidden = true;
    this.scope.hidden = scope.kind === 'whole';
    this.scope.textContent = scope.kind === 'whole' ? '' : describe(scope);
    this.root.hidden = scope.kind === 'whole';
  }
}

function describe(scope: Extract<ViewScope, { kind: 'neighbourhood' }>): string {
  const why = {
    size: `Graphviz in the view lays out at most ${count(WHOLE_GRAPH_MAX_NODES)} nodes at once`,
    stack: 'laying out the whole graph overflowed Graphviz\u2019s stack',
    deadline: `Graphviz did not lay out the whole graph within ${LAYOUT_DEADLINE_MS / 1000} s`,
    cancelled: 'the layout of the whole graph was cancelled',
  }[scope.reason];
  return `Showing the ${count(scope.shown.size)} nodes nearest to ${scope.focus} of ${count(scope.total)} (${why}). The view follows the active node and the selection; dashed nodes have edges to nodes not shown.`;
}
