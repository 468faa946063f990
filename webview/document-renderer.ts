// Document text → sanitised SVG element, through our own parser and a render DOT built from the
// model. Failures come back as a located diagnostic, never as an exception.
import type { Diagnostic } from '../engine/model/diagnostics';
import type { Graph } from '../engine/model/graph';
import { parseDot } from '../engine/parse/dot-parser';
import { layoutSvg } from './graphviz';
import type { LayoutEngine } from './protocol';
import { buildRenderDot, type ElementRef } from '../engine/model/render-dot';
import { sanitizeSvg } from './svg-sanitize';

export type RenderResult =
  | { readonly ok: true; readonly graph: Graph; readonly svg: SVGSVGElement; readonly refs: ReadonlyMap<string, ElementRef> }
  | { readonly ok: false; readonly diagnostic: Diagnostic };

export async function renderDocument(text: string, engine: LayoutEngine): Promise<RenderResult> {
  const parsed = parseDot(text);
  if (!parsed.graph) {
    const diagnostic = parsed.diagnostics.find((d) => d.severity === 'error') ?? { rule: 'syntax', severity: 'error', message: 'The document has no graph.' };
    return { ok: false, diagnostic };
  }
  const { dot, elements } = buildRenderDot(parsed.graph);
  try {
    const svg = sanitizeSvg(await layoutSvg(dot, engine), document);
    return { ok: true, graph: parsed.graph, svg, refs: elements };
  } catch (error) {
    return { ok: false, diagnostic: { rule: 'layout', severity: 'error', message: `Graphviz could not lay out the graph: ${error instanceof Error ? error.message : String(error)}` } };
  }
}
