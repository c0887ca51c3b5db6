import { describe, expect, it } from 'vitest';
import { GoTime } from '../data/go-time';
import { dayBucket, eachBucket, hourBucket, monthBucket, weekBucket, yearBucket } from './buckets';

describe('bucket values: the stored wall clock, never UTC or the local zone', () => {
  // [time as stored, hour, day, ISO week, month, year]
  it.each([
    ['2024-06-15T14:30:00Z', 2024061514, 20240615, 202424, 202406, 2024],
    // the same instant stored by a machine in Berlin and one in New York
    ['2024-06-15T16:30:00+02:00', 2024061516, 20240615, 202424, 202406, 2024],
    ['2024-06-15T10:30:00-04:00', 2024061510, 20240615, 202424, 202406, 2024],
    // 23:30 in Tokyo is 14:30 UTC: the hour of the Tokyo clock counts
    ['2024-06-15T23:30:00+09:00', 2024061523, 20240615, 202424, 202406, 2024],
    // New Year: 31 Dec in +14:00 is 30 Dec in UTC; ISO weeks cross the year
    ['2024-12-31T23:59:59+14:00', 2024123123, 20241231, 202501, 202412, 2024],
    ['2024-12-29T23:59:59-12:00', 2024122923, 20241229, 202452, 202412, 2024],
    ['2021-01-03T08:00:00+01:00', 2021010308, 20210103, 202053, 202101, 2021],
    ['2026-12-31T12:00:00Z', 2026123112, 20261231, 202653, 202612, 2026],
    ['2027-01-01T00:00:00+01:00', 2027010100, 20270101, 202653, 202701, 2027],
    // month ends and leap days
    ['2024-02-29T23:00:00+01:00', 2024022923, 20240229, 202409, 202402, 2024],
    ['2023-02-28T23:59:59-03:00', 2023022823, 20230228, 202309, 202302, 2023],
    ['2024-01-31T00:00:00Z', 2024013100, 20240131, 202405, 202401, 2024],
    // Berlin's DST nights: the wall clock as recorded, +02:00 before and +01:00 after
    ['2024-10-27T02:59:00+02:00', 2024102702, 20241027, 202443, 202410, 2024],
    ['2024-10-27T02:01:00+01:00', 2024102702, 20241027, 202443, 202410, 2024],
    ['2024-03-31T01:59:00+01:00', 2024033101, 20240331, 202413, 202403, 2024],
    ['2024-03-31T03:00:00+02:00', 2024033103, 20240331, 202413, 202403, 2024],
  ])('%s', (text, hour, day, week, month, year) => {
    const t = GoTime.parse(text);
    expect([hourBucket(t, 0), dayBucket(t, 0), weekBucket(t, 0), monthBucket(t, 0), yearBucket(t, 0)]).toEqual([hour, day, week, month, year]);
  });

  it('keep-last puts every snapshot in its own bucket: its position', () => {
    const t = GoTime.parse('2024-01-01T00:00:00Z');
    expect([0, 1, 7].map((nr) => eachBucket(t, nr))).toEqual([0, 1, 7]);
  });
});
