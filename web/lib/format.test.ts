import { describe, expect, it } from 'vitest';
import { downloadName, formatTime, joinPath } from './format';

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
