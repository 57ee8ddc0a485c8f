import { html } from './html.ts';
import type { SafeHtml } from './html.ts';

export type ChartPoint = { label: string; value: number };

const W = 720;
const H = 200;
const PAD = { top: 12, right: 12, bottom: 28, left: 64 };

/** Rounds the axis maximum up to 1, 2 or 5 × 10ⁿ so the gridlines fall on readable values. */
const niceMax = (v: number): number => {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
};

/**
 * A server-rendered bar chart: presentation attributes only (the CSP forbids inline styles), a title and
 * description for screen readers, and the same numbers in a table for those who want them exactly.
 */
export const barChart = (o: {
  id: string;
  title: string;
  points: readonly ChartPoint[];
  format: (v: number) => string;
  color: string;
}): SafeHtml => {
  const max = niceMax(Math.max(0, ...o.points.map((p) => p.value)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, o.points.length);
  const barW = Math.max(1, step * 0.7);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const ticks = [0, 0.5, 1].map((f) => f * max);
  const total = o.points.reduce((s, p) => s + p.value, 0);
  const labelEvery = Math.max(1, Math.ceil(o.points.length / 6));
  return html`<figure>
    <svg
      class="chart"
      viewBox="0 0 ${W} ${H}"
      role="img"
      aria-labelledby="${o.id}-t ${o.id}-d"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="${o.id}-t">${o.title}</title>
      <desc id="${o.id}-d">
        ${o.points.length} days, total ${o.format(total)}, highest day
        ${o.format(Math.max(0, ...o.points.map((p) => p.value)))}.
      </desc>
      ${ticks.map(
        (t) =>
          html`<line
              x1="${PAD.left}"
              x2="${W - PAD.right}"
              y1="${y(t).toFixed(1)}"
              y2="${y(t).toFixed(1)}"
              stroke="#d0d7de"
            />
            <text
              x="${PAD.left - 6}"
              y="${(y(t) + 4).toFixed(1)}"
              text-anchor="end"
              font-size="11"
              fill="#57606a"
              >${o.format(t)}</text
            >`,
      )}
      ${o.points.map((p, i) => {
        const x = PAD.left + i * step + (step - barW) / 2;
        const top = y(p.value);
        return html`<rect
            x="${x.toFixed(1)}"
            y="${top.toFixed(1)}"
            width="${barW.toFixed(1)}"
            height="${(PAD.top + plotH - top).toFixed(1)}"
            fill="${o.color}"
            ><title>${p.label}: ${o.format(p.value)}</title></rect
          >
          ${i % labelEvery === 0 ? html`<text x="${(x + barW / 2).toFixed(1)}" y="${H - 8}" text-anchor="middle" font-size="11" fill="#57606a">${p.label.slice(5)}</text>` : ''}`;
      })}
    </svg>
    <figcaption>${o.title}</figcaption>
  </figure>`;
};
