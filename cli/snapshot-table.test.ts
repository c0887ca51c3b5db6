import { beforeAll, describe, expect, it } from 'vitest';
import { GoTime } from '../core/data/go-time';
import type { SnapshotSummary } from '../core/data/snapshot';
import { displayWidth } from './display-width';
import { groupHeader, snapshotTable, type TableRow } from './snapshot-table';

beforeAll(() => {
  process.env.TZ = 'UTC'; // restic prints times in the local zone
});

const row = (id: string, time: string, o: Partial<TableRow['snapshot']> & { reasons?: string[] } = {}): TableRow => {
  const { reasons, ...sn } = o;
  return { id: id.padEnd(64, '0'), snapshot: { time: GoTime.parse(time), tree: 'f'.repeat(64), paths: ['/srv'], hostname: 'h', ...sn }, reasons };
};

describe('snapshotTable (restic 0.18 PrintSnapshots)', () => {
  it('lists oldest first in the local zone, with the Reasons column and restic’s minimum widths', () => {
    const text = snapshotTable(
      [
        row('bb', '2024-06-02T12:00:00+02:00', { reasons: ['daily snapshot', 'weekly snapshot'] }),
        row('aa', '2024-06-01T09:00:00Z', { tags: ['x', 'y'], reasons: ['has tags [x]'] }),
      ],
      {
        withReasons: true,
      },
    );
    expect(text).toBe(
      [
        'ID        Time                 Host        Tags        Reasons          Paths',
        '-----------------------------------------------------------------------------',
        'aa000000  2024-06-01 09:00:00  h           x,y         has tags [x]     /srv',
        'bb000000  2024-06-02 10:00:00  h                       daily snapshot   /srv',
        '                                                       weekly snapshot',
        '-----------------------------------------------------------------------------',
        '2 snapshots',
        '',
      ].join('\n'),
    );
  });

  it('adds a Size column when a snapshot has a summary (0.17+), and pads wide characters by cells', () => {
    const summary = { totalBytesProcessed: 1536 } as SnapshotSummary;
    const text = snapshotTable(
      [row('aa', '2024-06-01T09:00:00Z', { hostname: '東京サーバ', summary }), row('bb', '2024-06-02T09:00:00Z', { tags: ['a', 'b'] })],
      { compact: true },
    );
    expect(text).toBe(
      [
        'ID        Time                 Host        Tags    Size',
        '------------------------------------------------------------',
        'aa000000  2024-06-01 09:00:00  東京サーバ          1.500 KiB',
        'bb000000  2024-06-02 09:00:00  h           a',
        '                                           b',
        '------------------------------------------------------------',
        '2 snapshots',
        '',
      ].join('\n'),
    );
  });

  it('separates rows by a blank line once a snapshot has several paths', () => {
    const text = snapshotTable([row('aa', '2024-06-01T09:00:00Z', { paths: ['/a', '/b'] }), row('bb', '2024-06-02T09:00:00Z')]);
    expect(text.split('\n').slice(2, 6)).toEqual([
      'aa000000  2024-06-01 09:00:00  h                       /a',
      '                                                       /b',
      '',
      'bb000000  2024-06-02 09:00:00  h                       /srv',
    ]);
  });

  it.each([
    [{ hostname: 'h', paths: ['/a', '/b'], tags: null }, 'snapshots for (host [h], paths [/a, /b]):\n'],
    [{ hostname: '', paths: null, tags: ['x', 'y'] }, 'snapshots for (tags [x, y]):\n'],
    [{ hostname: 'h', paths: ['/a'], tags: ['x'] }, 'snapshots for (host [h], tags [x], paths [/a]):\n'],
    [{ hostname: '', paths: null, tags: null }, ''],
  ])('group header %j', (key, text) => {
    expect(groupHeader(key)).toBe(text);
  });

  it.each([
    ['abc', 3],
    ['東京', 4],
    ['ｶﾀｶﾅ', 4], // half-width katakana: one cell each
    ['😀x', 3],
    ['é', 1],
  ])('displayWidth(%j) = %i', (s, w) => {
    expect(displayWidth(s)).toBe(w);
  });
});
