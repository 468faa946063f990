// Pan and zoom of the graph stage. The transform lives here, not in the SVG, so a re-render keeps
// the user's view. Until the user pans or zooms, the view frames the whole graph: on the first
// render, on every render after it and on every resize (a panel opened beside the editor is laid
// out after its first render). Fit frames it again and goes back to following.

export interface ViewTransform {
  readonly x: number;
  readonly y: number;
  readonly k: number;
}

const MIN_ZOOM = 0.02;
const MAX_ZOOM = 8;
const DRAG_THRESHOLD = 4;
/** Below this zoom, 12-pt labels are unreadable. */
const READABLE_ZOOM = 0.6;

export class Viewport {
  private transform: ViewTransform = { x: 0, y: 0, k: 1 };
  private contentSize = { width: 0, height: 0 };
  /** True until the user pans or zooms (or a node is revealed); Fit sets it again. */
  private framing = true;
  private readonly listeners: Array<() => void> = [];
  /** Set while a drag is under way, so the click that ends it does not count as a click. */
  private dragged = false;

  constructor(
    readonly container: HTMLElement,
    readonly stage: HTMLElement,
  ) {
    container.addEventListener('wheel', (event) => this.onWheel(event), { passive: false });
    container.addEventListener('pointerdown', (event) => this.onPointerDown(event));
    container.addEventListener('click', (event) => {
      if (this.dragged) event.stopPropagation();
      this.dragged = false;
    }, true);
    new ResizeObserver(() => {
      if (this.framing) this.frame();
      else this.notify();
    }).observe(container);
  }

  get current(): ViewTransform {
    return this.transform;
  }

  get size(): { readonly width: number; readonly height: number } {
    return this.contentSize;
  }

  /** Whether the view still frames the whole graph by itself (the user has not panned or zoomed since). */
  get following(): boolean {
    return this.framing;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Called after each render with the new content's size; frames it while the view follows. */
  setContentSize(width: number, height: number): void {
    this.contentSize = { width, height };
    if (this.framing) this.frame();
    else this.apply();
  }

  /** Takes back a view saved before the webview was reloaded; a view that followed the graph keeps following it. */
  restore(transform: ViewTransform, following: boolean): void {
    this.transform = { ...transform, k: clamp(transform.k) };
    this.framing = following;
    this.apply();
  }

  fit(): void {
    this.framing = true;
    this.frame();
  }

  zoomBy(factor: number, around?: { x: number; y: number }): void {
    this.framing = false;
    const point = around ?? { x: this.container.clientWidth / 2, y: this.container.clientHeight / 2 };
    const { x, y, k } = this.transform;
    const next = clamp(k * factor);
    this.transform = { k: next, x: point.x - ((point.x - x) * next) / k, y: point.y - ((point.y - y) * next) / k };
    this.apply();
  }

  /** Centres a point given in content coordinates. */
  centerOn(contentX: number, contentY: number): void {
    this.framing = false;
    const { k } = this.transform;
    this.transform = { k, x: this.container.clientWidth / 2 - contentX * k, y: this.container.clientHeight / 2 - contentY * k };
    this.apply();
  }

  /**
   * Centres an element of the stage unless it is already in view and readable; on a graph fitted
   * far below reading size, it also zooms in so the element can be read.
   */
  reveal(element: Element): void {
    const box = element.getBoundingClientRect();
    const view = this.container.getBoundingClientRect();
    const readable = this.transform.k >= READABLE_ZOOM;
    if (readable && box.left >= view.left && box.right <= view.right && box.top >= view.top && box.bottom <= view.bottom) return;
    const stage = this.stage.getBoundingClientRect();
    const { k } = this.transform;
    const x = (box.left + box.width / 2 - stage.left) / k;
    const y = (box.top + box.height / 2 - stage.top) / k;
    if (!readable) this.transform = { ...this.transform, k: 1 };
    this.centerOn(x, y);
  }

  private frame(): void {
    const { clientWidth, clientHeight } = this.container;
    const { width, height } = this.contentSize;
    if (width === 0 || height === 0 || clientWidth === 0 || clientHeight === 0) return;
    const k = clamp(Math.min(clientWidth / width, clientHeight / height, 1.5) * 0.95);
    this.transform = { k, x: (clientWidth - width * k) / 2, y: (clientHeight - height * k) / 2 };
    this.apply();
  }

  private apply(): void {
    const { x, y, k } = this.transform;
    this.stage.style.transform = `translate(${x}px, ${y}px) scale(${k})`;
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private onWheel(event: WheelEvent): void {
    event.preventDefault();
    const rect = this.container.getBoundingClientRect();
    this.zoomBy(Math.exp(-event.deltaY * 0.0015), { x: event.clientX - rect.left, y: event.clientY - rect.top });
  }

  private onPointerDown(event: PointerEvent): void {
    if (event.button !== 0) return;
    const start = { x: event.clientX, y: event.clientY, tx: this.transform.x, ty: this.transform.y };
    let moved = false;
    const move = (e: PointerEvent) => {
      const dx = e.clientX - start.x;
      const dy = e.clientY - start.y;
      if (!moved && Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
      if (!moved) this.container.setPointerCapture(event.pointerId);
      moved = true;
      this.framing = false;
      this.transform = { ...this.transform, x: start.tx + dx, y: start.ty + dy };
      this.apply();
    };
    const up = () => {
      this.dragged = moved;
      this.container.removeEventListener('pointermove', move);
      this.container.removeEventListener('pointerup', up);
      this.container.removeEventListener('pointercancel', up);
    };
    this.container.addEventListener('pointermove', move);
    this.container.addEventListener('pointerup', up);
    this.container.addEventListener('pointercancel', up);
  }
}

function clamp(k: number): number {
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, k));
}
