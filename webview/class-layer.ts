// One feature's classes on the graph's SVG elements (run state, selection, search, breakpoints).
// Each layer remembers what it set, so an update touches only elements whose classes changed and
// layers never clear each other's classes.
import type { ElementIndex } from './element-index';

export type ClassAssignment = ReadonlyMap<string, readonly string[]>;

export class ClassLayer {
  private applied = new Map<string, readonly string[]>();
  private index: ElementIndex | undefined;

  /** Points the layer at a freshly rendered SVG and re-applies what it holds. */
  attach(index: ElementIndex): void {
    const desired = this.applied;
    this.index = index;
    this.applied = new Map();
    this.set(desired);
  }

  set(desired: ClassAssignment): void {
    const index = this.index;
    if (!index) {
      this.applied = new Map(desired);
      return;
    }
    for (const [id, classes] of this.applied) {
      const wanted = desired.get(id);
      if (wanted && sameClasses(wanted, classes)) continue;
      index.element(id)?.classList.remove(...classes);
    }
    for (const [id, classes] of desired) {
      const previous = this.applied.get(id);
      if (previous && sameClasses(previous, classes)) continue;
      index.element(id)?.classList.add(...classes);
    }
    this.applied = new Map(desired);
  }
}

function sameClasses(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
