// One row per iteration, one segment per visit, widths by duration: where each pass spent its time.
import { svgEl } from './dom';
import { formatMs } from './format';
import type { IterationSummary } from './iterations';
import type { TraceEntry } from '../host/protocol/webview';
import { statusClass } from './status-colors';

const WIDTH = 330;
const ROW = 18;
const LABEL = 34;

export function drawTimeline(iterations: readonly IterationSummary[], onSelect: (entry: TraceEntry) => void): SVGSVGElement {
  const height = Math.max(iterations.length, 1) * ROW + 4;
  const svg = svgEl('svg', { class: 'timeline', viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: 'img', 'aria-label': 'Timeline of visits per iteration' });
  const longest = Math.max(...iterations.map((it) => it.durationMs), 1);
  const scale = (WIDTH - LABEL - 4) / longest;
  iterations.forEach((it, row) => {
    const y = row * ROW + 2;
    svg.append(svgEl('text', { class: 'chart-tick', x: LABEL - 6, y: y + ROW - 6, 'text-anchor': 'end' }, [`i${it.iteration}`]));
    let x = LABEL;
    for (const entry of it.entries) {
      const width = Math.max(entry.duration_ms * scale, 2);
      const segment = svgEl('rect', { class: `timeline-visit ${statusClass(entry.status)}`, x, y, width, height: ROW - 4, 'data-node': entry.node_id }, [
        svgEl('title', {}, [`${entry.node_id}: ${entry.status}, ${formatMs(entry.duration_ms)}`]),
      ]);
      segment.addEventListener('click', () => onSelect(entry));
      svg.append(segment);
      x += width;
    }
  });
  return svg;
}
