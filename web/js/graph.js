// A small live graph as inline SVG: one line over the last minutes, scaled to its own maximum. No chart library.
import { svg } from './dom.js';

const W = 120;
const H = 28;

/** Pure: the polyline points of values (oldest first) in a W×H box, the newest at the right edge. */
export function points(values, windowN, max) {
  if (!values.length) return '';
  const top = max > 0 ? max : 1;
  const step = W / Math.max(1, windowN - 1);
  const start = W - (values.length - 1) * step;
  return values.map((v, i) => `${(start + i * step).toFixed(1)},${(H - 1 - ((v ?? 0) / top) * (H - 2)).toFixed(1)}`).join(' ');
}

export function graph(label) {
  const line = svg('polyline', { fill: 'none', stroke: 'currentColor', 'stroke-width': 1.5, 'vector-effect': 'non-scaling-stroke', points: '' });
  const el = svg('svg', { class: 'graph', viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', width: W, height: H, role: 'img', 'aria-label': label }, svg('title', {}, label), line);
  return {
    el,
    /** values: oldest first; windowN: samples the graph spans; floor: the least top of the scale. */
    update(values, windowN, floor = 1) {
      const max = Math.max(floor, ...values.map((v) => v ?? 0)) * 1.1;
      line.setAttribute('points', points(values, windowN, max));
    },
  };
}
