// The descent curve: per iteration, total duration (bars), unsuccessful outcomes (line) and each
// gate's verdict (dots along the top). Drawn as plain SVG; every label is a text node.
import { svgEl } from './dom';
import type { IterationSummary } from './iterations';
import { statusClass } from './status-colors';
import { formatMs } from './format';

const WIDTH = 330;
const HEIGHT = 150;
const MARGIN = { left: 52, right: 30, top: 22, bottom: 22 };

export function drawDescentChart(iterations: readonly IterationSummary[]): SVGSVGElement {
  const svg = svgEl('svg', { class: 'descent-chart', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT, role: 'img', 'aria-label': 'Descent curve across iterations' });
  svg.append(svgEl('title', {}, ['Per iteration: duration (bars), unsuccessful outcomes (line), gate verdicts (dots)']));
  if (iterations.length === 0) {
    svg.append(svgEl('text', { x: WIDTH / 2, y: HEIGHT / 2, 'text-anchor': 'middle', class: 'chart-empty' }, ['No iterations yet']));
    return svg;
  }
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const step = plotWidth / iterations.length;
  const maxDuration = Math.max(...iterations.map((it) => it.durationMs), 1);
  const maxUnsuccessful = Math.max(...iterations.map((it) => it.unsuccessful), 1);
  const baseline = MARGIN.top + plotHeight;
  const labelEvery = Math.ceil(iterations.length / 12);

  svg.append(
    svgEl('line', { class: 'chart-axis', x1: MARGIN.left, y1: baseline, x2: WIDTH - MARGIN.right, y2: baseline }),
    svgEl('text', { class: 'chart-tick', x: MARGIN.left - 4, y: MARGIN.top + 8, 'text-anchor': 'end' }, [formatMs(maxDuration)]),
    svgEl('text', { class: 'chart-tick chart-unsuccessful-label', x: WIDTH - MARGIN.right + 4, y: MARGIN.top + 8 }, [String(maxUnsuccessful)]),
  );

  const points: string[] = [];
  iterations.forEach((it, i) => {
    const cx = MARGIN.left + step * (i + 0.5);
    const barHeight = (it.durationMs / maxDuration) * plotHeight;
    svg.append(
      svgEl('rect', { class: 'chart-duration', x: cx - step * 0.3, y: baseline - barHeight, width: step * 0.6, height: barHeight }, [
        svgEl('title', {}, [`iteration ${it.iteration}: ${formatMs(it.durationMs)}, ${it.unsuccessful} unsuccessful`]),
      ]),
    );
    if (i % labelEvery === 0) svg.append(svgEl('text', { class: 'chart-tick', x: cx, y: HEIGHT - 6, 'text-anchor': 'middle' }, [String(it.iteration)]));
    const y = baseline - (it.unsuccessful / maxUnsuccessful) * plotHeight;
    points.push(`${cx},${y}`);
    const gap = Math.min(10, step / Math.max(it.gates.length, 1));
    it.gates.forEach((gate, g) => {
      svg.append(
        svgEl('circle', { class: `chart-gate ${statusClass(gate.status)}`, cx: cx + (g - (it.gates.length - 1) / 2) * gap, cy: MARGIN.top - 10, r: Math.min(4, gap / 2) }, [
          svgEl('title', {}, [`iteration ${it.iteration}: ${gate.nodeId} ${gate.status}${gate.label ? ` (${gate.label})` : ''}`]),
        ]),
      );
    });
  });
  svg.append(svgEl('polyline', { class: 'chart-unsuccessful', points: points.join(' ') }));
  for (const point of points) {
    const [x, y] = point.split(',');
    svg.append(svgEl('circle', { class: 'chart-unsuccessful-point', cx: x, cy: y, r: 2.5 }));
  }
  return svg;
}
