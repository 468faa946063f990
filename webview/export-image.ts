// Exports the laid-out graph: SVG as markup, PNG rasterised through a canvas. The theme's colours
// are resolved into the copy, so the file looks like the view without VS Code's CSS variables.

const PAINT_PROPERTIES = ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'opacity', 'font-weight'] as const;

export function exportSvgMarkup(live: SVGSVGElement): string {
  const copy = live.cloneNode(true) as SVGSVGElement;
  const sources = [live, ...Array.from(live.querySelectorAll('*'))];
  const targets = [copy, ...Array.from(copy.querySelectorAll('*'))];
  sources.forEach((source, i) => {
    const target = targets[i];
    if (!target) return;
    const style = getComputedStyle(source);
    for (const property of PAINT_PROPERTIES) target.setAttribute(property, style.getPropertyValue(property));
    target.removeAttribute('tabindex');
    target.removeAttribute('role');
  });
  for (const hit of Array.from(copy.querySelectorAll('.edge-hit'))) hit.remove();
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  return new XMLSerializer().serializeToString(copy);
}

// Chromium refuses canvases beyond these; a 2,000-node graph at 2x would exceed them.
const MAX_CANVAS_SIDE = 16_384;
const MAX_CANVAS_AREA = 100_000_000;

export async function rasterisePng(svgMarkup: string, width: number, height: number, background: string, preferredScale = 2): Promise<string> {
  const scale = Math.min(preferredScale, MAX_CANVAS_SIDE / width, MAX_CANVAS_SIDE / height, Math.sqrt(MAX_CANVAS_AREA / (width * height)));
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgMarkup)}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(width * scale);
  canvas.height = Math.ceil(height * scale);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('This webview cannot create a 2D canvas');
  context.fillStyle = background;
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL('image/png');
}
