// Document text → sanitised SVG element, through our own parser and a render DOT built from the
// model, laid out in the layout worker. A graph too large to lay out whole (by size, or because its
// layout overflowed the worker's stack) is shown as the neighbourhood of one node instead.
// Failures come back as a located diagnostic, never as an exception.
import type { Diagnostic } from '../engine/model/diagnostics';
import type { Graph } from '../engine/model/graph';
import type { LineIndex } from '../engine/model/source';
import { parseDot } from '../engine/parse/dot-parser';
import type { LayoutClient } from './layout-client';
import { focusNode, neighbourhood } from './neighbourhood';
import type { LayoutEngine } from '../host/protocol/webview';
import { buildRenderDot, type ElementRef } from '../engine/model/render-dot';
import { sanitizeSvg } from './svg-sanitize';

/** Above this many nodes the view lays out a neighbourhood: WASM Graphviz needs minutes and more stack than a page or worker thread has. */
export const WHOLE_GRAPH_MAX_NODES = 2000;
/** The size of that neighbourhood: a layout of well under a second. */
const NEIGHBOURHOOD_NODES = 300;

/** What the picture shows of the graph. */
export type ViewScope =
  | { readonly kind: 'whole' }
  | { readonly kind: 'neighbourhood'; readonly focus: string; readonly shown: ReadonlySet<string>; readonly total: number; readonly reason: 'size' | 'stack' };

export type RenderResult =
  | { readonly kind: 'rendered'; readonly graph: Graph; readonly lineIndex: LineIndex; readonly svg: SVGSVGElement; readonly refs: ReadonlyMap<string, ElementRef>; readonly scope: ViewScope }
  | { readonly kind: 'error'; readonly diagnostic: Diagnostic }
  /** A newer render started while this one was laying out. */
  | { readonly kind: 'superseded' };

export interface RenderRequest {
  readonly text: string;
  readonly engine: LayoutEngine;
  /** The node a neighbourhood centres on (the active or selected node); the start node when absent. */
  readonly focus: string | undefined;
  readonly layout: LayoutClient;
  /** Called as Graphviz starts, with the number of nodes it lays out. */
  readonly onLayoutStart: (nodes: number) => void;
}

export async function renderDocument(request: RenderRequest): Promise<RenderResult> {
  const parsed = parseDot(request.text);
  const graph = parsed.graph;
  if (!graph) {
    const diagnostic = parsed.diagnostics.find((d) => d.severity === 'error') ?? { rule: 'syntax', severity: 'error', message: 'The document has no graph.' };
    return { kind: 'error', diagnostic };
  }
  const neighbourhoodScope = (reason: 'size' | 'stack'): ViewScope => {
    const focus = focusNode(graph, request.focus) ?? '';
    return { kind: 'neighbourhood', focus, shown: neighbourhood(graph, focus, NEIGHBOURHOOD_NODES), total: graph.nodes.size, reason };
  };
  let scope = graph.nodes.size > WHOLE_GRAPH_MAX_NODES ? neighbourhoodScope('size') : { kind: 'whole' as const };
  let result = await layOut(graph, scope, request);
  if (result.kind === 'stack-overflow' && scope.kind === 'whole') {
    scope = neighbourhoodScope('stack');
    result = await layOut(graph, scope, request);
  }
  switch (result.kind) {
    case 'rendered':
      return { kind: 'rendered', graph, lineIndex: parsed.lineIndex, svg: result.svg, refs: result.refs, scope };
    case 'superseded':
      return result;
    case 'stack-overflow':
    case 'failed':
      return { kind: 'error', diagnostic: { rule: 'layout', severity: 'error', message: `Graphviz could not lay out the graph: ${result.message}` } };
  }
}

type LayoutResult =
  | { readonly kind: 'rendered'; readonly svg: SVGSVGElement; readonly refs: ReadonlyMap<string, ElementRef> }
  | { readonly kind: 'failed' | 'stack-overflow'; readonly message: string }
  | { readonly kind: 'superseded' };

async function layOut(graph: Graph, scope: ViewScope, request: RenderRequest): Promise<LayoutResult> {
  const shown = scope.kind === 'neighbourhood' ? scope.shown : undefined;
  const { dot, elements } = buildRenderDot(graph, shown);
  request.onLayoutStart(shown?.size ?? graph.nodes.size);
  const outcome = await request.layout.layout(dot, request.engine);
  switch (outcome.kind) {
    case 'superseded':
      return outcome;
    case 'failed':
      return { kind: outcome.stackOverflow ? 'stack-overflow' : 'failed', message: outcome.message };
    case 'laid-out':
      try {
        return { kind: 'rendered', svg: sanitizeSvg(outcome.svg, document), refs: elements };
      } catch (error) {
        return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
      }
  }
}
