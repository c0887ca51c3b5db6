import { expect, test } from 'vitest';
import { overdueNow, remindOverdue, REMINDER_CHECK_PREF, reminderText, type PrefStore, type Reminder } from './reminders';

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

test('overlapping wake-ups mention a missed run once and are each counted', async () => {
  const store = new Map<string, unknown>([['reminders', [r('a', 10 * H, 34 * H)]]]);
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
  // Every read and write yields, so two unserialized wake-ups would both read before either wrote.
  const prefs: PrefStore = {
    read: async (keys) => (await tick(), keys.map((k) => structuredClone(store.get(k)))),
    write: async (k, v) => void (await tick(), store.set(k, v)),
  };
  const shown: string[] = [];
  const show = async (title: string) => void shown.push(title);
  const counts = await Promise.all([remindOverdue(show, 40 * H, prefs), remindOverdue(show, 40 * H, prefs)]);
  expect(counts).toEqual([1, 0]);
  expect(shown).toEqual(['Backup overdue: a']);
  expect(store.get(REMINDER_CHECK_PREF)).toEqual({ count: 2, at: 40 * H });
});

test('a wake-up with no plans is still counted', async () => {
  const store = new Map<string, unknown>();
  const prefs: PrefStore = { read: async (keys) => keys.map((k) => store.get(k)), write: async (k, v) => void store.set(k, v) };
  expect(await remindOverdue(async () => undefined, 5, prefs)).toBe(0);
  expect(store.get(REMINDER_CHECK_PREF)).toEqual({ count: 1, at: 5 });
});
