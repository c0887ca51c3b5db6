import { expect, test } from 'vitest';
import { overdueNow, reminderText, type Reminder } from './reminders';

const H = 3_600_000;
const r = (planId: string, dueAt: number, overdueAt: number): Reminder => ({ planId, planName: planId, repoLabel: 'Bucket', dueAt, overdueAt });

test('each overdue run is mentioned once; a later run of the same plan again', () => {
  const list = [r('a', 10 * H, 34 * H), r('b', 30 * H, 54 * H)];
  const first = overdueNow(list, {}, 40 * H);
  expect(first.show.map((x) => x.planId)).toEqual(['a']);
  expect(first.reminded).toEqual({ a: 10 * H });

  const again = overdueNow(list, first.reminded, 41 * H);
  expect(again.show).toEqual([]);

  const later = overdueNow([r('a', 60 * H, 84 * H), list[1]!], again.reminded, 90 * H);
  expect(later.show.map((x) => x.planId)).toEqual(['a', 'b']);
  expect(later.reminded).toEqual({ a: 60 * H, b: 30 * H });
});

test('a deleted plan drops out of the record', () => {
  expect(overdueNow([r('b', 0, 1)], { a: 5, b: 0 }, 2).reminded).toEqual({ b: 0 });
});

test('the text says when it was due and that backups need the app open', () => {
  const t = reminderText(r('Photos', 0, 24 * H), 26 * H);
  expect(t.title).toBe('Backup overdue: Photos');
  expect(t.body).toMatch(/26 hours ago/);
  expect(t.body).toMatch(/only while Cairn is open/);
});
