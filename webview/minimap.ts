// A thumbnail of the whole graph with the visible area outlined, shown for graphs too big to read
// at a glance. The thumbnail is the sanitised SVG as an <img>, which never runs anything.
import { el } from './dom';
import type { Viewport } from './viewport';

const MIN_NODES = 30;
const MAX_WIDTH = 180;
const MAX_HEIGHT = 240;

export class Minimap {
  readonly root = el('div', { class: 'minimap', hidden: true, 'aria-hidden': 'true' });
  private readonly image = el('img', { alt: '' });
  private readonly frame = el('div', { class: 'minimap-frame' });
  private scale = 1;

  constructor(private readonly viewport: Viewport) {
    this.root.append(this.image, this.frame);
    viewport.onChange(() => this.updateFrame());
    this.root.addEventListener('pointerdown', (event) => {
      event.stopPropagation();
      const pan = (e: PointerEvent) => {
        const rect = this.image.getBoundingClientRect();
        this.viewport.centerOn((e.clientX - rect.left) / this.scale, (e.clientY - rect.top) / this.scale);
      };
      pan(event);
      this.root.setPointerCapture(event.pointerId);
      this.root.addEventListener('pointermove', pan);
      this.root.addEventListener('pointerup', () => this.root.removeEventListener('pointermove', pan), { once: true });
    });
  }

  show(svg: SVGSVGElement, nodeCount: number): void {
    const { width, height } = this.viewport.size;
    this.root.hidden = nodeCount < MIN_NODES || width === 0;
    if (this.root.hidden) return;
    this.scale = Math.min(MAX_WIDTH / width, MAX_HEIGHT / height);
    this.image.width = Math.round(width * this.scale);
    this.image.height = Math.round(height * this.scale);
    this.image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
    this.updateFrame();
  }

  private updateFrame(): void {
    if (this.root.hidden) return;
    const { x, y, k } = this.viewport.current;
    const { clientWidth, clientHeight } = this.viewport.container;
    const s = this.scale / k;
    Object.assign(this.frame.style, { left: `${-x * s}px`, top: `${-y * s}px`, width: `${clientWidth * s}px`, height: `${clientHeight * s}px` });
  }
}
