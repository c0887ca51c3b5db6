import { describe, expect, test } from 'vitest';
import { axisBytes, byteStep, chartGeometry, sizeOverTime, timeTicks } from './chart';

const MiB = 1024 * 1024;
const DAY = 86_400_000;
const T0 = Date.UTC(2025, 4, 1);

describe('axis steps', () => {
  test.each([
    [0, 1],
    [1000, 500],
    [3000, 1024],
    [900 * 1024, 500 * 1024],
    [3.5 * MiB, MiB],
    [70 * MiB, 20 * MiB],
    [5 * 1024 * MiB, 2 * 1024 * MiB],
  ])('max %d bytes → step %d', (max, step) => {
    expect(byteStep(max)).toBe(step);
  });

  test('time ticks fall on whole steps inside the span', () => {
    expect(timeTicks(T0, T0 + 10 * DAY)).toEqual([T0, T0 + 7 * DAY]);
    const hours = timeTicks(T0 + 1000, T0 + 5 * 3_600_000);
    expect(hours.every((t) => t % 3_600_000 === 0 && t > T0 && t <= T0 + 5 * 3_600_000)).toBe(true);
    expect(timeTicks(T0, T0)).toEqual([T0]);
  });
});

describe('chartGeometry', () => {
  const box = { width: 300, height: 120, left: 60, bottom: 20, top: 10, right: 10 };

  test('points map into the plot: oldest left, newest right, zero at the bottom, the top tick above the largest', () => {
    const g = chartGeometry(
      [
        { t: T0 + 2 * DAY, v: 3 * MiB },
        { t: T0, v: 0 },
        { t: T0 + DAY, v: 1 * MiB },
      ],
      box,
    );
    expect(g.plot).toEqual({ x: 60, y: 10, width: 230, height: 90 });
    expect(g.line).toBe('M60 100 L175 70 L290 10');
    expect(g.area).toBe('M60 100 L175 70 L290 10 L290 100 L60 100 Z');
    expect(g.yTicks.map((t) => t.label)).toEqual(['0 B', '1 MiB', '2 MiB', '3 MiB']);
    expect(g.yTicks.map((t) => t.at)).toEqual([100, 70, 40, 10]);
    // 230 px of plot has room for two labels: a day apart
    expect(g.xTicks.map((t) => t.label)).toEqual(['2025-05-01', '2025-05-02', '2025-05-03']);
    const wide = chartGeometry(
      [
        { t: T0, v: 0 },
        { t: T0 + 2 * DAY, v: 1 },
      ],
      { ...box, width: 700 },
    );
    expect(wide.xTicks.map((t) => t.label)).toEqual(['05-01 00:00', '05-01 12:00', '05-02 00:00', '05-02 12:00', '05-03 00:00']);
    for (const b of g.bars) {
      expect(b.x).toBeGreaterThanOrEqual(60);
      expect(b.x + b.width).toBeLessThanOrEqual(290);
      expect(b.y + b.height).toBe(100);
    }
    expect(g.bars.map((b) => b.height)).toEqual([0, 30, 90]);
  });

  test('a single point sits in the middle; no points draw nothing', () => {
    const g = chartGeometry([{ t: T0, v: 5 }], box);
    expect(g.dots).toEqual([{ x: 175, y: 25, t: T0, v: 5 }]); // 5 of a 6-byte axis
    expect(chartGeometry([], box)).toMatchObject({ line: '', bars: [], yTicks: [], xTicks: [] });
  });

  test('hours label a short span; labels follow the viewer’s zone', () => {
    const g = chartGeometry(
      [
        { t: T0, v: 1 },
        { t: T0 + 6 * 3_600_000, v: 2 },
      ],
      box,
      -120,
    );
    expect(g.xTicks[0]!.label).toBe('02:00');
  });

  test('every coordinate is a finite number, whatever the data', () => {
    const g = chartGeometry(
      Array.from({ length: 500 }, (_, i) => ({ t: T0 + i * 60_000, v: (i * 7919) % 10_000_000 })),
      { width: 320, height: 100 },
    );
    const nums = [...g.line.matchAll(/-?[\d.]+/g)].map((m) => Number(m[0]));
    expect(nums.every(Number.isFinite)).toBe(true);
    expect(g.bars.every((b) => b.width >= 2 && b.height >= 0)).toBe(true);
  });

  test('bars never overlap: as wide as the closest two points allow', () => {
    // Every other day for 16 days, then one more a day later (the overview's case: 24 px bars overlapped).
    const points = [...Array.from({ length: 9 }, (_, i) => ({ t: T0 + 2 * i * DAY, v: i + 1 })), { t: T0 + 17 * DAY, v: 10 }];
    const g = chartGeometry(points, { width: 430, height: 100 });
    for (let i = 1; i < g.bars.length; i++) expect(g.bars[i]!.x).toBeGreaterThanOrEqual(g.bars[i - 1]!.x + g.bars[i - 1]!.width);
  });
});

test('size over time counts back from the size now', () => {
  expect(
    sizeOverTime(
      [
        { t: 3, added: 10 },
        { t: 1, added: 100 },
        { t: 2 }, // restic before 0.17: no summary, nothing known
      ],
      150,
    ),
  ).toEqual([
    { t: 1, v: 140 },
    { t: 2, v: 140 },
    { t: 3, v: 150 },
  ]);
});

test('axis labels are short', () => {
  expect(axisBytes(0)).toBe('0 B');
  expect(axisBytes(500 * 1024)).toBe('500 KiB');
  expect(axisBytes(MiB)).toBe('1 MiB');
  expect(axisBytes(1.5 * 1024 * MiB)).toBe('1.5 GiB');
});
