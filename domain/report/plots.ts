// The report's at-a-glance plots, hand-built SVG like the others in renderHtml.ts: the
// mean of a metric per model x setting with its 95% interval, and interactive against in-context per method
// (one point per method and model). Pure code.
import { esc, PALETTE } from './html';
import { metricValue, METRIC_LABEL, settingLabel, type EpisodeRow, type GroupSummary, type Metric } from './summarize';

interface Scale {
  lo: number;
  hi: number;
  ticks: number[];
  fmt: (x: number) => string;
}

const SCALES: Partial<Record<Metric, Scale>> = {
  score: { lo: 1, hi: 5, ticks: [1, 2, 3, 4, 5], fmt: (x) => String(x) },
};
const SHARE: Scale = { lo: 0, hi: 1, ticks: [0, 0.25, 0.5, 0.75, 1], fmt: (x) => `${Math.round(100 * x)}%` };
const scaleOf = (m: Metric) => SCALES[m] ?? SHARE;

/** Colours by model, in the order models first appear (the same in every plot of a report). */
function modelColours(models: readonly string[]): (model: string) => string {
  const order = [...new Set(models)].sort();
  return (model) => PALETTE[order.indexOf(model) % PALETTE.length]!;
}

/**
 * Dot and whisker: one row per model x setting, the mean (filled: interactive, open: in-context) and its
 * 95% bootstrap interval over methods. Groups without a mean are listed with "no data".
 */
export function intervalPlotSvg(
  groups: readonly GroupSummary[],
  metric: Metric,
  title: string = METRIC_LABEL[metric],
  reference?: { value: number; label: string },
): string {
  const sc = scaleOf(metric);
  const rows = [...groups].sort((a, b) => a.model.localeCompare(b.model) || a.setting.localeCompare(b.setting));
  const colour = modelColours(rows.map((g) => g.model));
  const rowH = 24;
  const m = { l: 268, r: 16, t: 28, b: reference ? 46 : 34 };
  const W = 548;
  const H = m.t + m.b + rowH * Math.max(1, rows.length);
  const pw = W - m.l - m.r;
  const x = (v: number) => m.l + (pw * (Math.min(sc.hi, Math.max(sc.lo, v)) - sc.lo)) / (sc.hi - sc.lo);
  const parts: string[] = [`<text x="${m.l + pw / 2}" y="16" text-anchor="middle" font-size="13" font-weight="600">${esc(title)}</text>`];
  for (const t of sc.ticks) {
    parts.push(
      `<line x1="${x(t)}" x2="${x(t)}" y1="${m.t}" y2="${H - m.b}" stroke="#e3e3e3"/><text x="${x(t)}" y="${H - m.b + 16}" text-anchor="middle" font-size="11">${sc.fmt(t)}</text>`,
    );
  }
  if (reference) {
    const rx = x(reference.value).toFixed(1);
    parts.push(
      `<line x1="${rx}" x2="${rx}" y1="${m.t - 4}" y2="${H - m.b}" stroke="#c0392b" stroke-dasharray="5 3"/><text x="${rx}" y="${H - 4}" text-anchor="middle" font-size="10" fill="#c0392b">${esc(reference.label)}</text>`,
    );
  }
  rows.forEach((g, i) => {
    const y = m.t + rowH * i + rowH / 2;
    const e = g.metrics[metric];
    const label = `${g.model} / ${settingLabel(g)}`;
    parts.push(`<text x="${m.l - 8}" y="${y + 4}" text-anchor="end" font-size="11">${esc(label.length > 46 ? `…${label.slice(-45)}` : label)}</text>`);
    if (e.mean === null) {
      parts.push(`<text x="${m.l + 4}" y="${y + 4}" font-size="11" fill="#888">no data</text>`);
      return;
    }
    const c = colour(g.model);
    const fmt = (v: number | null) => (v === null ? '?' : sc === SHARE ? `${(100 * v).toFixed(1)}%` : v.toFixed(2));
    const tip = `<title>${esc(`${label}: ${fmt(e.mean)} [${fmt(e.lo)}, ${fmt(e.hi)}], ${e.n} episodes`)}</title>`;
    if (e.lo !== null && e.hi !== null) {
      parts.push(
        `<line x1="${x(e.lo).toFixed(1)}" x2="${x(e.hi).toFixed(1)}" y1="${y}" y2="${y}" stroke="${c}" stroke-width="2"/>` +
          `<line x1="${x(e.lo).toFixed(1)}" x2="${x(e.lo).toFixed(1)}" y1="${y - 5}" y2="${y + 5}" stroke="${c}" stroke-width="2"/>` +
          `<line x1="${x(e.hi).toFixed(1)}" x2="${x(e.hi).toFixed(1)}" y1="${y - 5}" y2="${y + 5}" stroke="${c}" stroke-width="2"/>`,
      );
    }
    const fill = g.setting === 'interactive' ? c : '#fff';
    parts.push(`<circle cx="${x(e.mean).toFixed(1)}" cy="${y}" r="5" fill="${fill}" stroke="${c}" stroke-width="2">${tip}</circle>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)} per model and setting">${parts.join('')}</svg>`;
}

/** Per method and model: the mean of a metric over its samples in each setting (counted as in the headline). */
export function settingPairs(rows: readonly EpisodeRow[], metric: Metric): { model: string; methodId: string; interactive: number; inContext: number }[] {
  const acc = new Map<string, { model: string; methodId: string; i: number[]; c: number[] }>();
  for (const r of rows) {
    const v = metricValue(r, metric, 'all');
    if (v === null) continue;
    const k = `${r.model}\u0000${r.methodId}`;
    const a = acc.get(k) ?? { model: r.model, methodId: r.methodId, i: [], c: [] };
    (r.setting === 'interactive' ? a.i : a.c).push(v);
    acc.set(k, a);
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return [...acc.values()]
    .filter((a) => a.i.length > 0 && a.c.length > 0)
    .map((a) => ({ model: a.model, methodId: a.methodId, interactive: mean(a.i), inContext: mean(a.c) }))
    .sort((a, b) => a.model.localeCompare(b.model) || a.methodId.localeCompare(b.methodId));
}

/**
 * Interactive (y) against in-context (x) per method, one point per method and model, with the diagonal:
 * points above it are methods the model described better by experimenting. Null when no method has both.
 */
export function settingScatterSvg(rows: readonly EpisodeRow[], metric: Metric, title = METRIC_LABEL[metric]): string | null {
  const pts = settingPairs(rows, metric);
  if (pts.length === 0) return null;
  const sc = scaleOf(metric);
  const colour = modelColours(pts.map((p) => p.model));
  const S = 300;
  const m = { l: 52, r: 14, t: 28, b: 44 };
  const W = m.l + S + m.r;
  const H = m.t + S + m.b;
  const pos = (v: number) => (S * (v - sc.lo)) / (sc.hi - sc.lo);
  const X = (v: number) => m.l + pos(v);
  const Y = (v: number) => m.t + S - pos(v);
  const parts: string[] = [`<text x="${m.l + S / 2}" y="16" text-anchor="middle" font-size="13" font-weight="600">${esc(title)}</text>`];
  for (const t of sc.ticks) {
    parts.push(
      `<line x1="${X(t)}" x2="${X(t)}" y1="${m.t}" y2="${m.t + S}" stroke="#eee"/><text x="${X(t)}" y="${m.t + S + 15}" text-anchor="middle" font-size="11">${sc.fmt(t)}</text>`,
      `<line x1="${m.l}" x2="${m.l + S}" y1="${Y(t)}" y2="${Y(t)}" stroke="#eee"/><text x="${m.l - 5}" y="${Y(t) + 4}" text-anchor="end" font-size="11">${sc.fmt(t)}</text>`,
    );
  }
  parts.push(`<line x1="${X(sc.lo)}" y1="${Y(sc.lo)}" x2="${X(sc.hi)}" y2="${Y(sc.hi)}" stroke="#999" stroke-dasharray="4 3"/>`);
  parts.push(`<text x="${m.l + S / 2}" y="${H - 8}" text-anchor="middle" font-size="12">in-context</text>`);
  parts.push(`<text x="14" y="${m.t + S / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 14 ${m.t + S / 2})">interactive</text>`);
  // Points that coincide (scores are whole numbers) are spread a little around their place, deterministically.
  const seen = new Map<string, number>();
  for (const p of pts) {
    const key = `${p.inContext.toFixed(3)}|${p.interactive.toFixed(3)}`;
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    const angle = k * 2.4;
    const rad = k === 0 ? 0 : 3 + 1.5 * Math.sqrt(k);
    const cx = X(p.inContext) + rad * Math.cos(angle);
    const cy = Y(p.interactive) + rad * Math.sin(angle);
    const fmt = (v: number) => (sc === SHARE ? `${(100 * v).toFixed(0)}%` : v.toFixed(2));
    parts.push(
      `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="4" fill="${colour(p.model)}" fill-opacity="0.75"><title>${esc(`${p.methodId} · ${p.model}: interactive ${fmt(p.interactive)}, in-context ${fmt(p.inContext)}`)}</title></circle>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}: interactive against in-context per method">${parts.join('')}</svg>`;
}

/** The legend of the plots: one colour per model, and what the marks mean. */
export function modelLegend(models: readonly string[], note = 'filled dot: interactive, open dot: in-context; bars: 95% interval over methods'): string {
  const colour = modelColours(models);
  const keys = [...new Set(models)].sort().map((mo) => `<span class="key"><i style="background:${colour(mo)}"></i>${esc(mo)}</span>`);
  return `<div class="legend">${keys.join(' ')} <span class="key">· ${esc(note)}</span></div>`;
}
