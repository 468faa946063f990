// The graph panel: shows a rendered SVG, keeps the view across re-renders and turns clicks on
// nodes and edges into intents. Everything run-related is layered on by class toggles.
import { BreakpointMarkers } from './breakpoint-markers';
import { ClassLayer } from './class-layer';
import { el } from './dom';
import { ElementIndex } from './element-index';
import { Minimap } from './minimap';
import type { ElementRef } from '../engine/model/render-dot';
import { nodeElementId } from '../engine/model/render-dot';
import { RunOverlay } from './run-overlay';
import { Viewport } from './viewport';

const ZOOM_KEYS: Readonly<Record<string, number | 'fit'>> = { '+': 1.25, '=': 1.25, '-': 0.8, '0': 'fit' };

export interface GraphViewIntents {
  reveal(ref: ElementRef): void;
  toggleBreakpoint(ref: ElementRef): void;
}

export class GraphView {
  readonly root = el('div', { class: 'graph-view', tabindex: '-1' });
  private readonly stage = el('div', { class: 'graph-stage' });
  readonly viewport = new Viewport(this.root, this.stage);
  readonly overlay = new RunOverlay();
  readonly breakpoints = new BreakpointMarkers();
  private readonly minimap = new Minimap(this.viewport);
  private readonly selection = new ClassLayer();
  private readonly search = new ClassLayer();
  private index: ElementIndex | undefined;
  private selectedNode: string | null = null;

  constructor(private readonly intents: GraphViewIntents) {
    this.root.append(this.stage, this.minimap.root);
    this.root.addEventListener('click', (event) => {
      const hit = this.index?.refAt(event.target);
      if (!hit) return;
      if (event.altKey) this.intents.toggleBreakpoint(hit.ref);
      else this.activate(hit.ref);
    });
    this.root.addEventListener('contextmenu', (event) => {
      const hit = this.index?.refAt(event.target);
      if (!hit) return;
      event.preventDefault();
      this.intents.toggleBreakpoint(hit.ref);
    });
    this.root.addEventListener('keydown', (event) => {
      const zoom = ZOOM_KEYS[event.key];
      if (zoom !== undefined && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        if (zoom === 'fit') this.viewport.fit();
        else this.viewport.zoomBy(zoom);
        return;
      }
      const hit = this.index?.refAt(event.target);
      if (!hit) return;
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.activate(hit.ref);
      } else if (event.key === 'F9' || event.key.toLowerCase() === 'b') {
        event.preventDefault();
        this.intents.toggleBreakpoint(hit.ref);
      }
    });
  }

  get elements(): ElementIndex | undefined {
    return this.index;
  }

  /** Replaces the picture; the view transform, run state, selection and breakpoints carry over. */
  show(svg: SVGSVGElement, refs: ReadonlyMap<string, ElementRef>): void {
    const box = svg.viewBox.baseVal;
    svg.setAttribute('width', String(box.width));
    svg.setAttribute('height', String(box.height));
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'Pipeline graph');
    this.stage.replaceChildren(svg);
    const index = new ElementIndex(svg, refs);
    this.index = index;
    for (const [id, ref] of refs) {
      const group = index.element(id);
      if (!group) continue;
      if (ref.kind === 'edge') addHitArea(group);
      group.setAttribute('tabindex', '0');
      group.setAttribute('role', 'button');
      group.setAttribute('aria-label', ref.kind === 'node' ? `Node ${ref.nodeId}` : `Edge ${group.querySelector('title')?.textContent ?? ref.edgeIndex}`);
    }
    this.viewport.setContentSize(box.width, box.height);
    // Before the overlays add badges and markers: the thumbnail shows the plain graph.
    this.minimap.show(svg, index.nodeCount);
    this.overlay.attach(index);
    this.breakpoints.attach(index);
    this.selection.attach(index);
    this.search.attach(index);
    // The edges to trace can differ when the picture shows another part of the graph.
    this.select(this.selectedNode, false);
  }

  /** Selects a node and traces its edges: incoming and outgoing edges are marked. */
  select(nodeId: string | null, reveal = true): void {
    this.selectedNode = nodeId;
    const id = nodeId === null ? undefined : nodeElementId(nodeId);
    const classes = new Map<string, string[]>();
    if (id && nodeId !== null) {
      classes.set(id, ['selected']);
      for (const [edgeId, ref] of this.index?.refs ?? []) {
        if (ref.kind !== 'edge' || (ref.from !== nodeId && ref.to !== nodeId)) continue;
        classes.set(edgeId, [ref.from === nodeId ? 'edge-out' : 'edge-in']);
      }
    }
    this.selection.set(classes);
    const element = id ? this.index?.element(id) : undefined;
    if (element && reveal) this.viewport.reveal(element);
  }

  get selected(): string | null {
    return this.selectedNode;
  }

  /** Marks matches and dims the rest; `focus` is the match to bring into view. */
  highlightMatches(ids: readonly string[], focus: string | undefined): void {
    this.root.classList.toggle('searching', ids.length > 0);
    this.search.set(new Map(ids.map((id) => [id, id === focus ? ['search-match', 'search-focus'] : ['search-match']])));
    const element = focus ? this.index?.element(focus) : undefined;
    if (element) this.viewport.reveal(element);
  }

  private activate(ref: ElementRef): void {
    if (ref.kind === 'node') this.select(ref.nodeId, false);
    this.intents.reveal(ref);
  }
}

/** Edges are hairlines; a wide transparent copy of the path makes them easy to click. */
function addHitArea(group: SVGGElement): void {
  const path = group.querySelector('path');
  if (!path) return;
  const hit = path.cloneNode(false) as SVGPathElement;
  hit.setAttribute('class', 'edge-hit');
  hit.setAttribute('stroke', 'transparent');
  group.insertBefore(hit, path);
}
