// The graph view's page: wires a host's messages (VS Code's extension, or `attractor serve` for the
// browser app) to the views and the views' intents back to the host. Both entries start it.
import type { Diagnostic } from '../engine/model/diagnostics';
import type { Graph } from '../engine/model/graph';
import { LineIndex, type SourceRange, type SourceSpan } from '../engine/model/source';
import { renderDocument, type ViewScope } from './document-renderer';
import { el } from './dom';
import { ErrorBanner } from './error-banner';
import { exportSvgMarkup, rasterisePng } from './export-image';
import { GatePanel } from './gate-panel';
import { GraphView } from './graph-view';
import type { ViewHost } from './host';
import { LayoutClient } from './layout-client';
import { LayoutStatus } from './layout-status';
import type { ExtensionToWebviewMessage, LayoutEngine, WireRange } from '../host/protocol/webview';
import type { ElementRef } from '../engine/model/render-dot';
import { findMatches } from './search';
import { Toolbar } from './toolbar';
import { TracePanel } from './trace-panel';
import './webview.css';

const RENDER_DEBOUNCE_MS = 150;
/** On big graphs, wait about as long as a render takes: each keystroke would otherwise restart the layout worker. */
const MAX_RENDER_DEBOUNCE_MS = 2000;

/** Builds the graph view (toolbar, graph, gate and trace panels) into `container`, talking to `host`. */
export function startGraphView(host: ViewHost, container: HTMLElement = document.body): void {
  let documentUri = '';
  let documentText: string | undefined;
  let documentVersion = 0;
  let engine: LayoutEngine = 'dot';
  let graph: Graph | undefined;
  /** The line index of the text `graph` was read from: its ranges are offsets into that text. */
  let lineIndex = new LineIndex('');
  let scope: ViewScope = { kind: 'whole' };
  /** The node a graph too large to lay out whole is shown around: the active node, else the last selected one. */
  let focus: string | undefined;
  const layout = new LayoutClient();
  const layoutStatus = new LayoutStatus(() => layout.cancel());
  /** The text whose whole graph missed the layout deadline or was cancelled: its renders lay out a neighbourhood at once. */
  let gaveUpWhole: { readonly text: string; readonly reason: 'deadline' | 'cancelled' } | undefined;
  let renderSequence = 0;
  let renderTimer: ReturnType<typeof setTimeout> | undefined;
  let lastRenderMs = 0;
  let search = { query: '', matches: [] as string[], focus: -1 };

  const toWire = (range: SourceRange): WireRange => ({
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  });
  const spanToWire = (span: SourceSpan): WireRange => toWire(lineIndex.rangeOf(span));

  const graphView = new GraphView({
    reveal: (ref: ElementRef) =>
      host.post(ref.kind === 'node' ? { type: 'revealNode', uri: documentUri, nodeId: ref.nodeId, range: spanToWire(ref.range) } : { type: 'revealEdge', uri: documentUri, edgeIndex: ref.edgeIndex, range: spanToWire(ref.range) }),
    toggleBreakpoint: (ref: ElementRef) =>
      host.post({
        type: 'toggleBreakpoint',
        uri: documentUri,
        target: ref.kind === 'node' ? { kind: 'node', nodeId: ref.nodeId, range: spanToWire(ref.range) } : { kind: 'edge', edgeIndex: ref.edgeIndex, range: spanToWire(ref.range) },
      }),
  });

  const banner = new ErrorBanner((diagnostic: Diagnostic) => {
    if (diagnostic.range) host.post({ type: 'revealRange', uri: documentUri, range: toWire(diagnostic.range) });
  });

  const toolbar = new Toolbar({
    fit: () => graphView.viewport.fit(),
    zoom: (factor) => graphView.viewport.zoomBy(factor),
    setEngine: (next) => setEngine(next),
    search: (query, next) => runSearch(query, next),
    exportImage: (format) => void exportImage(format),
    copy: () => {
      const svg = graphView.elements?.svg;
      if (svg) host.post({ type: 'copy', text: exportSvgMarkup(svg) });
    },
  });

  const tracePanel = new TracePanel({
    selectVisit: (entry) => {
      follow(entry.node_id);
      graphView.select(entry.node_id);
      const ref = graph?.nodes.get(entry.node_id);
      if (ref) host.post({ type: 'revealNode', uri: documentUri, nodeId: entry.node_id, range: spanToWire(ref.declarations[0] ?? ref.idRange) });
      host.post({ type: 'requestVisit', iteration: entry.iteration, nodeId: entry.node_id, ...(entry.visit !== undefined ? { visit: entry.visit } : {}) });
    },
    openRun: () => host.post({ type: 'openRun' }),
    openFileDiff: (visit, path) => host.post({ type: 'openFileDiff', iteration: visit.iteration, nodeId: visit.nodeId, path, ...(visit.visit > 1 ? { visit: visit.visit } : {}) }),
    rerunFrom: (visit) => host.post({ type: 'rerunFrom', iteration: visit.iteration, nodeId: visit.nodeId, ...(visit.visit > 1 ? { visit: visit.visit } : {}) }),
  });

  const gatePanel = new GatePanel(
    (gateId, answer) => host.post({ type: 'answerGate', gateId, answer }),
    (gateId) => host.post({ type: 'pickAttachments', gateId }),
  );

  const rejected = el('div', { class: 'protocol-error', role: 'status', hidden: true });

  container.append(
    toolbar.root,
    banner.root,
    rejected,
    el('main', { class: 'layout' }, [el('div', { class: 'graph-area' }, [graphView.root, layoutStatus.root, gatePanel.root]), tracePanel.root]),
  );

  const saved = host.savedState;
  if (saved) {
    engine = saved.engine;
    toolbar.showEngine(engine);
    graphView.viewport.restore(saved.view, saved.following ?? false);
  }
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  graphView.viewport.onChange(() => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => host.saveState({ view: graphView.viewport.current, following: graphView.viewport.following, engine }), 250);
  });

  host.listen(handleMessage, (error) => {
    rejected.textContent = `Ignored a malformed message from the extension: ${error}`;
    rejected.hidden = false;
  });
  host.post({ type: 'ready' });

  function handleMessage(message: ExtensionToWebviewMessage): void {
    switch (message.type) {
      case 'document':
        // Messages can overtake each other; an older version of the same document is stale.
        if (message.uri === documentUri && message.version < documentVersion) break;
        if (message.uri !== documentUri) focus = undefined;
        documentUri = message.uri;
        documentText = message.text;
        documentVersion = message.version;
        scheduleRender();
        break;
      case 'settings':
        setEngine(message.layoutEngine);
        break;
      case 'graphState':
        graphView.overlay.apply(message);
        tracePanel.setRunStatus(message.runStatus, host.rerunsVisits ?? true);
        if (message.activeNode) follow(message.activeNode);
        toolbar.status.textContent = `${message.runStatus} · iteration ${message.iteration}${message.activeNode ? ` · ${message.activeNode}` : ''}`;
        break;
      case 'traceEntries':
        tracePanel.add(message.entries, message.replace);
        break;
      case 'visitArtifacts':
        tracePanel.showArtifacts(message);
        break;
      case 'humanGate':
        gatePanel.open(message);
        break;
      case 'humanGateClosed':
        gatePanel.close(message.gateId);
        break;
      case 'gateAttachments':
        gatePanel.attach(message.gateId, message.files);
        break;
      case 'selectNode':
        if (message.nodeId !== null) follow(message.nodeId);
        graphView.select(message.nodeId);
        break;
      case 'breakpoints':
        graphView.breakpoints.set(message.nodes, message.edges);
        break;
    }
  }

  function setEngine(next: LayoutEngine): void {
    toolbar.showEngine(next);
    if (next === engine) return;
    engine = next;
    scheduleRender();
  }

  function scheduleRender(): void {
    clearTimeout(renderTimer);
    renderTimer = setTimeout(() => void render(), Math.min(Math.max(RENDER_DEBOUNCE_MS, lastRenderMs), MAX_RENDER_DEBOUNCE_MS));
  }

  async function render(): Promise<void> {
    const text = documentText;
    if (text === undefined) return;
    const sequence = ++renderSequence;
    const version = documentVersion;
    const started = performance.now();
    const result = await renderDocument({
      text,
      engine,
      focus,
      layout,
      fallback: gaveUpWhole?.text === text ? gaveUpWhole.reason : undefined,
      onLayoutStart: (nodes) => {
        layoutStatus.layingOut(nodes);
        document.body.dataset.renderState = 'laying-out';
      },
    });
    // A newer render took over the layout worker; it reports when it ends.
    if (result.kind === 'superseded' || sequence !== renderSequence) return;
    if (result.kind === 'rendered') {
      graph = result.graph;
      lineIndex = result.lineIndex;
      scope = result.scope;
      if (scope.kind === 'neighbourhood' && (scope.reason === 'deadline' || scope.reason === 'cancelled')) gaveUpWhole = { text, reason: scope.reason };
      graphView.show(result.svg, result.refs);
      banner.hide();
      tracePanel.setGateNodes(new Set([...result.graph.nodes.values()].filter((node) => node.attributes.get('goal_gate')?.value === 'true').map((node) => node.id)));
      if (search.query) runSearch(search.query, false);
    } else {
      banner.show(result.diagnostic, graph !== undefined);
    }
    layoutStatus.done(scope);
    // Lets tests and benches wait for a given document version to be on screen, and time it.
    lastRenderMs = performance.measure('attractor:render', { start: started, end: performance.now() }).duration;
    document.body.dataset.renderedVersion = String(version);
    document.body.dataset.renderState = result.kind;
  }

  /** Keeps `nodeId` in view: a neighbourhood that does not hold it is laid out again around it. */
  function follow(nodeId: string): void {
    focus = nodeId;
    if (scope.kind === 'neighbourhood' && !scope.shown.has(nodeId) && graph?.nodes.has(nodeId)) scheduleRender();
  }

  function runSearch(query: string, next: boolean): void {
    const matches = graph ? findMatches(graph, query) : [];
    const focus = matches.length === 0 ? -1 : next && query === search.query ? (search.focus + 1) % matches.length : 0;
    search = { query, matches, focus };
    graphView.highlightMatches(matches, matches[focus]);
  }

  async function exportImage(format: 'svg' | 'png'): Promise<void> {
    const svg = graphView.elements?.svg;
    if (!svg) return;
    const markup = exportSvgMarkup(svg);
    if (format === 'svg') {
      host.post({ type: 'exportImage', format, data: markup });
      return;
    }
    const background = getComputedStyle(document.body).getPropertyValue('--vscode-editor-background').trim() || '#ffffff';
    const box = svg.viewBox.baseVal;
    host.post({ type: 'exportImage', format, data: await rasterisePng(markup, box.width, box.height, background) });
  }
}
