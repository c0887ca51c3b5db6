import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatBytes, formatDuration, ProgressTracker, type ProgressSnapshot } from '.';

describe('ProgressTracker', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2024-01-01T00:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('throttles listeners to one update per interval unless forced', () => {
    const seen: ProgressSnapshot[] = [];
    const p = new ProgressTracker('backup', (s) => seen.push(s), 250);
    p.tick();
    expect(seen).toHaveLength(1);
    vi.advanceTimersByTime(100);
    p.tick();
    expect(seen).toHaveLength(1);
    p.tick(true);
    expect(seen).toHaveLength(2);
    vi.advanceTimersByTime(249);
    p.tick();
    expect(seen).toHaveLength(2);
    vi.advanceTimersByTime(1);
    p.tick();
    expect(seen).toHaveLength(3);
  });

  it('without a listener, tick does nothing', () => {
    const p = new ProgressTracker('x');
    expect(() => p.tick(true)).not.toThrow();
  });

  it('snapshots are copies: later changes do not leak into earlier snapshots', () => {
    const p = new ProgressTracker('restoring');
    p.done.bytes = 10;
    p.add('filesNew');
    p.current.add('/a');
    const s = p.snapshot();
    p.done.bytes = 20;
    p.add('filesNew', 2);
    p.current.add('/b');
    expect(s.done.bytes).toBe(10);
    expect(s.extra).toEqual({ filesNew: 1 });
    expect(s.currentFiles).toEqual(['/a']);
    expect(p.snapshot().extra).toEqual({ filesNew: 3 });
  });

  it('rate comes from the last few seconds; ETA only once totals are final', () => {
    const p = new ProgressTracker('backup');
    p.total.bytes = 1000;
    p.snapshot();
    vi.advanceTimersByTime(2000);
    p.done.bytes = 200;
    let s = p.snapshot();
    expect(s.bytesPerSec).toBeCloseTo(100);
    expect(s.etaSec).toBeUndefined();
    expect(s.elapsedMs).toBe(2000);
    p.totalsFinal = true;
    vi.advanceTimersByTime(2000);
    p.done.bytes = 400;
    s = p.snapshot();
    expect(s.bytesPerSec).toBeCloseTo(100);
    expect(s.etaSec).toBeCloseTo(6);
    // Old samples age out: a stall shows up as a falling rate.
    vi.advanceTimersByTime(10_000);
    p.snapshot();
    vi.advanceTimersByTime(1000);
    s = p.snapshot();
    expect(s.bytesPerSec).toBe(0);
    expect(s.etaSec).toBeUndefined();
  });

  it('before half a second of samples, the rate is the average since the start', () => {
    const p = new ProgressTracker('backup');
    vi.advanceTimersByTime(4000);
    p.done.bytes = 4000;
    expect(p.snapshot().bytesPerSec).toBeCloseTo(1000);
  });

  it('shows at most 8 current files and counts errors', () => {
    const p = new ProgressTracker('backup');
    for (let i = 0; i < 12; i++) p.current.add(`/f${i}`);
    p.errors = 3;
    const s = p.snapshot();
    expect(s.currentFiles).toHaveLength(8);
    expect(s.errors).toBe(3);
    expect(s.phase).toBe('backup');
  });
});

describe('formatting as restic 0.14 prints', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1024 B'], // restic switches units only above 1 KiB
    [1025, '1.001 KiB'],
    [1088, '1.062 KiB'], // 1.0625: Go rounds the tie to even
    [1089, '1.063 KiB'],
    [1536, '1.500 KiB'],
    [2 ** 20, '1024.000 KiB'],
    [2 ** 20 + 1, '1.000 MiB'],
    [5 * 2 ** 30 + 2 ** 29, '5.500 GiB'],
    [3 * 2 ** 40, '3.000 TiB'],
    [512.75, '512 B'],
  ])('formatBytes(%d) = %s', (n, want) => {
    expect(formatBytes(n)).toBe(want);
  });

  it.each([
    [0, '0:00'],
    [59.6, '0:59'],
    [61, '1:01'],
    [3599, '59:59'],
    [3600, '1:00:00'],
    [36_000 + 62, '10:01:02'],
  ])('formatDuration(%d) = %s', (sec, want) => {
    expect(formatDuration(sec)).toBe(want);
  });
});
