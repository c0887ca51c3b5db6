import { describe, expect, it } from 'vitest';
import { GoTime } from '../core/data/go-time';
import type { ForgetGroup } from '../core/forget';
import { forgetJSON, idSetText } from './forget-output';

const entry = (c: string, time: string) => ({
  id: c.repeat(64),
  snapshot: { time: GoTime.parse(time), tree: 'f'.repeat(64), paths: ['/a', '/b'], hostname: 'h' },
});

describe('forget output', () => {
  it('writes restic 0.18’s JSON: null for empty lists and for what groups are not split by; reasons carry IDs', () => {
    const a = entry('a', '2024-01-01T00:00:00Z');
    const groups: ForgetGroup[] = [
      { key: { hostname: 'h', paths: ['/a', '/b'], tags: null }, keep: [a], remove: [], reasons: [{ entry: a, matches: ['last snapshot'] }] },
      { key: { hostname: '', paths: null, tags: null }, keep: [], remove: [a], reasons: [] },
    ];
    const snapshot = { time: '2024-01-01T00:00:00Z', tree: 'f'.repeat(64), paths: ['/a', '/b'], hostname: 'h', id: 'a'.repeat(64), short_id: 'aaaaaaaa' };
    const text = forgetJSON(groups);
    expect(text.endsWith(']\n')).toBe(true);
    expect(JSON.parse(text)).toEqual([
      { tags: null, host: 'h', paths: ['/a', '/b'], keep: [snapshot], remove: null, reasons: [{ snapshot, matches: ['last snapshot'] }] },
      { tags: null, host: '', paths: null, keep: null, remove: [snapshot], reasons: null },
    ]);
    expect(Object.keys(JSON.parse(text)[0])).toEqual(['tags', 'host', 'paths', 'keep', 'remove', 'reasons']);
  });

  it('names the removed snapshots as restic’s IDSet does', () => {
    expect(idSetText(['b'.repeat(64), 'a'.repeat(64)])).toBe('{aaaaaaaa bbbbbbbb}');
  });
});
