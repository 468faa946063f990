// The rendered SVG's node and edge groups by their stable ids, with what each one stands for.
import type { ElementRef } from '../engine/model/render-dot';

export class ElementIndex {
  private readonly byId = new Map<string, SVGGElement>();

  constructor(
    readonly svg: SVGSVGElement,
    readonly refs: ReadonlyMap<string, ElementRef>,
  ) {
    for (const group of Array.from(svg.querySelectorAll<SVGGElement>('g.node, g.edge'))) {
      if (refs.has(group.id)) this.byId.set(group.id, group);
    }
  }

  element(id: string): SVGGElement | undefined {
    return this.byId.get(id);
  }

  ref(id: string): ElementRef | undefined {
    return this.refs.get(id);
  }

  /** The node or edge an event target belongs to, if any. */
  refAt(target: EventTarget | null): { readonly id: string; readonly ref: ElementRef } | undefined {
    const group = target instanceof Element ? target.closest('g.node, g.edge') : null;
    const ref = group ? this.refs.get(group.id) : undefined;
    return group && ref ? { id: group.id, ref } : undefined;
  }

  get nodeCount(): number {
    let nodes = 0;
    for (const ref of this.refs.values()) if (ref.kind === 'node') nodes++;
    return nodes;
  }
}
