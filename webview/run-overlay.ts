// Shows a run on the laid-out graph: the active node, visited nodes and taken edges by status,
// visit/iteration badges and the current edge. It only toggles classes and small badge groups on
// the existing SVG; it never asks Graphviz for a new layout.
import { ClassLayer } from './class-layer';
import { svgEl } from './dom';
import type { ElementIndex } from './element-index';
import type { GraphStateMessage, NodeRunState } from '../host/protocol/webview';
import { edgeElementId, nodeElementId } from '../engine/model/render-dot';
import { statusClass } from './status-colors';

export class RunOverlay {
  private readonly classes = new ClassLayer();
  private readonly badges = new Map<string, SVGGElement>();
  private index: ElementIndex | undefined;
  private state: GraphStateMessage | undefined;

  attach(index: ElementIndex): void {
    this.index = index;
    this.badges.clear();
    this.classes.attach(index);
    if (this.state) this.updateBadges(this.state);
  }

  apply(state: GraphStateMessage): void {
    this.state = state;
    const desired = new Map<string, string[]>();
    for (const [nodeId, node] of Object.entries(state.nodes)) desired.set(nodeElementId(nodeId), ['run-visited', statusClass(node.status)]);
    if (state.activeNode) {
      const id = nodeElementId(state.activeNode);
      desired.set(id, [...(desired.get(id) ?? []), 'run-active']);
    }
    for (const edge of state.takenEdges) desired.set(edgeElementId(edge.index), ['run-taken', statusClass(edge.status)]);
    if (state.currentEdge !== undefined && state.currentEdge !== null) {
      const id = edgeElementId(state.currentEdge);
      desired.set(id, [...(desired.get(id) ?? []), 'run-current']);
    }
    this.classes.set(desired);
    this.updateBadges(state);
  }

  private updateBadges(state: GraphStateMessage): void {
    const index = this.index;
    if (!index) return;
    for (const [nodeId, badge] of this.badges) {
      if (!state.nodes[nodeId]) {
        badge.remove();
        this.badges.delete(nodeId);
      }
    }
    for (const [nodeId, node] of Object.entries(state.nodes)) {
      const group = index.element(nodeElementId(nodeId));
      if (!group) continue;
      const label = badgeText(node);
      let badge = this.badges.get(nodeId);
      if (!badge) {
        badge = createBadge(group);
        this.badges.set(nodeId, badge);
      }
      const textNode = badge.querySelector('text');
      if (textNode && textNode.textContent !== label) {
        textNode.textContent = label;
        badge.querySelector('rect')?.setAttribute('width', String(label.length * 6 + 8));
      }
    }
  }
}

function badgeText(node: NodeRunState): string {
  const attempt = node.lastAttempt !== undefined && node.lastAttempt > 1 ? ` a${node.lastAttempt}` : '';
  return `${node.visits}× i${node.iteration}${attempt}`;
}

/** A badge pinned to the node's top-right corner, in the node's own coordinate space. */
function createBadge(group: SVGGElement): SVGGElement {
  const box = group.getBBox();
  const badge = svgEl('g', { class: 'run-badge', transform: `translate(${box.x + box.width - 10}, ${box.y - 8})` }, [
    svgEl('rect', { x: 0, y: 0, rx: 6, ry: 6, height: 13, width: 30 }),
    svgEl('text', { x: 4, y: 10 }),
  ]);
  group.append(badge);
  return badge;
}
