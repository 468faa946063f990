// Breakpoint markers on nodes and edges, as the extension reports them from VS Code's model.
import { ClassLayer } from './class-layer';
import { svgEl } from './dom';
import type { ElementIndex } from './element-index';
import { edgeElementId, nodeElementId } from '../engine/model/render-dot';

export class BreakpointMarkers {
  private readonly classes = new ClassLayer();
  private readonly markers = new Map<string, SVGCircleElement>();
  private index: ElementIndex | undefined;
  private ids: readonly string[] = [];

  attach(index: ElementIndex): void {
    this.index = index;
    this.markers.clear();
    this.classes.attach(index);
    this.updateMarkers();
  }

  set(nodes: readonly string[], edges: readonly number[]): void {
    this.ids = [...nodes.map(nodeElementId), ...edges.map(edgeElementId)];
    this.classes.set(new Map(this.ids.map((id) => [id, ['has-breakpoint']])));
    this.updateMarkers();
  }

  private updateMarkers(): void {
    const index = this.index;
    if (!index) return;
    const wanted = new Set(this.ids);
    for (const [id, marker] of this.markers) {
      if (wanted.has(id)) continue;
      marker.remove();
      this.markers.delete(id);
    }
    for (const id of wanted) {
      const group = index.element(id);
      if (!group || this.markers.has(id)) continue;
      const at = markerPosition(group);
      const marker = svgEl('circle', { class: 'breakpoint-marker', cx: at.x, cy: at.y, r: 5 });
      group.append(marker);
      this.markers.set(id, marker);
    }
  }
}

/** Nodes: the top-left corner. Edges: the middle of the path. */
function markerPosition(group: SVGGElement): { x: number; y: number } {
  const path = group.querySelector('path');
  if (group.classList.contains('edge') && path) {
    const point = path.getPointAtLength(path.getTotalLength() / 2);
    return { x: point.x, y: point.y };
  }
  const box = group.getBBox();
  return { x: box.x + 2, y: box.y + 2 };
}
