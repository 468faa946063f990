// Document text → sanitised SVG element, through our own parser and a render DOT built from the
// model, laid out in the layout worker. A graph too large to lay out whole (by size, because its
// layout overflowed the worker's stack, missed the layout deadline or was cancelled) is shown as the
// neighbourhood of one node instead.
// Failures come back as a located diagnostic, never as an exception.
import type { Diagnostic } from '../engine/model/diagnostics';
import type { Graph } from '../engine/model/graph';
import type { LineIndex } from '../engine/model/source';
import { parseDot } from '../engine/parse/dot-parser';
import { LAYOUT_DEADLINE_MS, type LayoutClient } from './layout-client';
import { focusNode, neighbourhood } from './neighbourhood';
import type { LayoutEngine } from '../host/protocol/webview';
import { buildRenderDot, type ElementRef } from '../engine/model/render-dot';
import { sanitizeSvg } from './svg-sanitize';

/** Above this many nodes the view lays out a neighbourhood: WASM Graphviz needs minutes and more stack than a page or worker thread has. */
export const WHOLE_GRAPH_MAX_NODES = 2000;
/** The size of that neighbourhood: a layout of well under a second. */
const NEIGHBOURHOOD_NODES = 300;

/** Why the picture shows a neighbourhood rather than the whole graph. */
type NeighbourhoodReason = 'size' | 'stack' | 'deadline' | 'cancelled';

/** What the picture shows of the graph. */
export type ViewScope =
  | { readonly kind: 'whole' }
  | { readonly kind: 'neighbourhood'; readonly focus: string; readonly shown: ReadonlySet<string>; readonly total: number; readonly reason: NeighbourhoodReason };

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
  /** The whole graph of this text already missed the deadline or was cancelled: lay out the neighbourhood at once. */
  readonly fallback: 'deadline' | 'cancelled' | undefined;
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
  const neighbourhoodScope = (reason: NeighbourhoodReason): ViewScope => {
    const focus = focusNode(graph, request.focus) ?? '';
    return { kind: 'neighbourhood', focus, shown: neighbourhood(graph, focus, NEIGHBOURHOOD_NODES), total: graph.nodes.size, reason };
  };
  const first = graph.nodes.size > WHOLE_GRAPH_MAX_NODES ? 'size' : request.fallback;
  let scope = first ? neighbourhoodScope(first) : { kind: 'whole' as const };
  let result = await layOut(graph, scope, request);
  const fallback = FALLBACKS[result.kind];
  if (fallback && scope.kind === 'whole') {
    scope = neighbourhoodScope(fallback);
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
    case 'timed-out':
      return { kind: 'error', diagnostic: { rule: 'layout', severity: 'error', message: `Graphviz did not lay out the graph within ${LAYOUT_DEADLINE_MS / 1000} s.` } };
    case 'cancelled':
      return { kind: 'error', diagnostic: { rule: 'layout', severity: 'error', message: 'The layout was cancelled.' } };
  }
}

/** The whole-graph layouts that give way to a neighbourhood, and why. */
const FALLBACKS: Partial<Record<LayoutResult['kind'], NeighbourhoodReason>> = { 'stack-overflow': 'stack', 'timed-out': 'deadline', cancelled: 'cancelled' };

type LayoutResult =
  | { readonly kind: 'rendered'; readonly svg: SVGSVGElement; readonly refs: ReadonlyMap<string, ElementRef> }
  | { readonly kind: 'failed' | 'stack-overflow'; readonly message: string }
  | { readonly kind: 'superseded' }
  | { readonly kind: 'timed-out' | 'cancelled' };

async function layOut(graph: Graph, scope: ViewScope, request: RenderRequest): Promise<LayoutResult> {
  const shown = scope.kind === 'neighbourhood' ? scope.shown : undefined;
  const { dot, elements } = buildRenderDot(graph, shown);
  request.onLayoutStart(shown?.size ?? graph.nodes.size);
  const outcome = await request.layout.layout(dot, request.engine);
  switch (outcome.kind) {
    case 'superseded':
      return outcome;
    case 'timed-out':
    case 'cancelled':
      return { kind: outcome.kind };
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
