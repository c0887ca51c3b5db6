import { describe, expect, it, test } from 'vitest';
import { downloadName, formatNodeTime, formatRelative, formatTime, joinPath, plural } from './format';

describe('format', () => {
  it('prints times as restic snapshots does, in this device’s zone, and passes through what it cannot parse', () => {
    const local = new Date(2024, 4, 1, 14, 3, 22);
    expect(formatTime(local.toISOString())).toBe('2024-05-01 14:03:22');
    expect(formatTime('yesterday')).toBe('yesterday');
  });

  it('names downloads after the last path component, or the snapshot', () => {
    expect(downloadName(['a', 'Photos'], 'zip', 'abcd1234')).toBe('Photos.zip');
    expect(downloadName(['a', 'b.txt'], 'file', 'abcd1234')).toBe('b.txt');
    expect(downloadName([], 'zip', 'abcd1234')).toBe('snapshot-abcd1234.zip');
    expect(joinPath(['a', 'b'])).toBe('/a/b');
  });
});

test('relative times', () => {
  const now = Date.UTC(2025, 0, 1);
  expect(formatRelative(now + 30_000, now)).toBe('now');
  expect(formatRelative(now + 5 * 60_000, now)).toBe('in 5 min');
  expect(formatRelative(now - (3 * 60 + 5) * 60_000, now)).toBe('3 h 5 min ago');
  expect(formatRelative(now + 20 * 3_600_000, now)).toBe('in 20 h');
  expect(formatRelative(now - 3 * 86_400_000, now)).toBe('3 days ago');
});

test('a node without a time shows none; counts agree with their nouns', () => {
  expect(formatNodeTime('1970-01-01T00:00:00Z')).toBe('');
  expect(formatNodeTime('2024-05-01T14:03:22+02:00')).toMatch(/^2024-05-01 \d\d:03:22$/);
  expect(plural(1, 'entry', 'entries')).toBe('1 entry');
  expect(plural(0, 'entry', 'entries')).toBe('0 entries');
  expect(plural(1200, 'file', 'files')).toBe('1,200 files');
});
