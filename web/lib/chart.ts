// The dashboard's charts as geometry: points in, SVG path data, bars and axis ticks out, for a
// box of a given size in pixels (the component measures its width, so text stays legible at
// 360 px). Pure, so it is tested without a browser.

export interface Point {
  /** Epoch ms. */
  t: number;
  /** Bytes. */
  v: number;
}

export interface Box {
  width: number;
  height: number;
  /** Room for the y labels (left) and x labels (bottom). */
  left?: number;
  bottom?: number;
  top?: number;
  right?: number;
}

export interface Tick {
  at: number;
  label: string;
}

export interface ChartGeometry {
  /** The plot area inside the box. */
  plot: { x: number; y: number; width: number; height: number };
  /** Line through the points (empty without points). */
  line: string;
  /** The area under the line, closed along the x axis. */
  area: string;
  /** One bar per point, centred on its time. */
  bars: { x: number; y: number; width: number; height: number; t: number; v: number }[];
  /** Dots at the points (for a single point, where there is no line to see). */
  dots: { x: number; y: number; t: number; v: number }[];
  yTicks: Tick[];
  xTicks: Tick[];
}

const KIB = 1024;

/** Round steps in bytes: 1, 2, 5 × 1024^k, and 10, 20, 50, 100, 200, 500 of each unit. */
export function byteStep(max: number, count = 4): number {
  if (!(max > 0)) return 1;
  const raw = max / count;
  let unit = 1;
  while (unit * KIB <= raw) unit *= KIB;
  for (const m of [1, 2, 5, 10, 20, 50, 100, 200, 500]) if (unit * m >= raw) return unit * m;
  return unit * KIB;
}

/** A round byte count as an axis label: "0 B", "500 KiB", "1 MiB", "1.5 GiB". */
export function axisBytes(v: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  while (i < units.length - 1 && v >= KIB ** (i + 1)) i++;
  const n = v / KIB ** i;
  return `${Number.isInteger(n) ? n : n.toFixed(1)} ${units[i]}`;
}

/** Tick times across [from, to]: about `count`, at whole days when the span allows. */
export function timeTicks(from: number, to: number, count = 4): number[] {
  if (to <= from) return [from];
  const span = to - from;
  const DAY = 86_400_000;
  const HOUR = 3_600_000;
  const steps = [HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 30 * DAY, 91 * DAY, 182 * DAY, 365 * DAY];
  const step = steps.find((s) => span / s <= count) ?? 365 * DAY * Math.ceil(span / (365 * DAY) / count);
  const out: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out.length ? out : [from];
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A tick's label: the date for ticks a day or more apart, else the time (with the day once the span passes a day). */
function timeLabel(t: number, step: number, span: number, tzOffsetMin: number): string {
  const d = new Date(t - tzOffsetMin * 60_000);
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  if (step >= 86_400_000) return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return span < 86_400_000 ? time : `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${time}`;
}

/**
 * Geometry of one series. `tzOffsetMin` is Date#getTimezoneOffset() of the viewer (labels in
 * their local time); 0 in tests.
 */
export function chartGeometry(points: readonly Point[], box: Box, tzOffsetMin = 0): ChartGeometry {
  const left = box.left ?? 64;
  const bottom = box.bottom ?? 22;
  const top = box.top ?? 8;
  const right = box.right ?? 12;
  const plot = { x: left, y: top, width: Math.max(10, box.width - left - right), height: Math.max(10, box.height - top - bottom) };
  const sorted = [...points].sort((a, b) => a.t - b.t);
  if (sorted.length === 0) return { plot, line: '', area: '', bars: [], dots: [], yTicks: [], xTicks: [] };

  const t0 = sorted[0]!.t;
  const t1 = sorted[sorted.length - 1]!.t;
  const span = t1 - t0;
  const maxV = Math.max(...sorted.map((p) => p.v), 0);
  const step = byteStep(maxV);
  const top_ = Math.max(step, Math.ceil(maxV / step) * step);
  // A lone point (or several at one time) sits in the middle.
  const x = (t: number) => (span > 0 ? plot.x + ((t - t0) / span) * plot.width : plot.x + plot.width / 2);
  const y = (v: number) => plot.y + plot.height - (Math.max(0, v) / top_) * plot.height;
  const r = (n: number) => Math.round(n * 10) / 10;

  const coords = sorted.map((p) => [r(x(p.t)), r(y(p.v))] as const);
  const line = coords.map(([cx, cy], i) => `${i ? 'L' : 'M'}${cx} ${cy}`).join(' ');
  const base = r(plot.y + plot.height);
  const area = `${line} L${coords[coords.length - 1]![0]} ${base} L${coords[0]![0]} ${base} Z`;

  // Bars as wide as the closest two points leave room for (at most 24 px, at least 2), placed
  // on a time axis inset by half a bar, so the first and last stay inside the plot whole.
  let gap = plot.width;
  for (let i = 1; i < coords.length; i++) gap = Math.min(gap, coords[i]![0] - coords[i - 1]![0]);
  const barWidth = r(Math.max(2, Math.min(24, gap * 0.6)));
  const xBar = (t: number) => (span > 0 ? plot.x + barWidth / 2 + ((t - t0) / span) * (plot.width - barWidth) : plot.x + plot.width / 2);
  const bars = sorted.map((p) => {
    const cy = y(p.v);
    return { x: r(xBar(p.t) - barWidth / 2), y: r(cy), width: barWidth, height: r(base - cy), t: p.t, v: p.v };
  });
  const dots = sorted.map((p, i) => ({ x: coords[i]![0], y: coords[i]![1], t: p.t, v: p.v }));

  const yTicks: Tick[] = [];
  for (let v = 0; v <= top_ + step / 2; v += step) yTicks.push({ at: r(y(v)), label: axisBytes(v) });
  const times = span > 0 ? timeTicks(t0, t1, Math.max(2, Math.floor(plot.width / 110))) : [t0];
  const tickStep = times.length > 1 ? times[1]! - times[0]! : 86_400_000;
  const xTicks = times.map((t) => ({ at: r(x(t)), label: timeLabel(t, tickStep, span, tzOffsetMin) }));
  return { plot, line, area, bars, dots, yTicks, xTicks };
}

/**
 * The repository's size after each snapshot, going back from its size now: each snapshot
 * added what its summary says (restic's data_added_packed; 0 when it has no summary). An
 * estimate: what `prune` removed since is not known.
 */
export function sizeOverTime(snaps: readonly { t: number; added?: number }[], storedNow: number): Point[] {
  const sorted = [...snaps].sort((a, b) => a.t - b.t);
  const out: Point[] = [];
  let size = storedNow;
  for (let i = sorted.length - 1; i >= 0; i--) {
    out.push({ t: sorted[i]!.t, v: Math.max(0, size) });
    size -= sorted[i]!.added ?? 0;
  }
  return out.reverse();
}
