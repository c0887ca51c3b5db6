// Overdue plans, noticed by the service worker when Periodic Background Sync wakes it (an
// installed app in Chromium; the browser decides how often). The page does the reasoning: it
// keeps a list of each plan's next run and when that run counts as overdue (in the "cairn-ui"
// database's prefs, key "reminders"); this worker only compares those times with the clock
// and says which plans to mention. It never backs anything up: a closed browser cannot.

export interface Reminder {
  planId: string;
  planName: string;
  repoLabel: string;
  /** When the plan is due (epoch ms). */
  dueAt: number;
  /** From when it counts as overdue. */
  overdueAt: number;
}

export const REMINDERS_PREF = 'reminders';
export const REMINDED_PREF = 'reminded';

/** Plan ID → the due time it was last reminded of (so each missed run is mentioned once). */
export type Reminded = Record<string, number>;

/** The reminders to show now, and the updated record of what was shown. */
export function overdueNow(list: readonly Reminder[], reminded: Reminded, now: number): { show: Reminder[]; reminded: Reminded } {
  const show = list.filter((r) => r.overdueAt <= now && reminded[r.planId] !== r.dueAt);
  const next: Reminded = {};
  for (const r of list) if (reminded[r.planId] !== undefined) next[r.planId] = reminded[r.planId]!;
  for (const r of show) next[r.planId] = r.dueAt;
  return { show, reminded: next };
}

export function reminderText(r: Reminder, now: number): { title: string; body: string } {
  const hours = Math.max(1, Math.round((now - r.dueAt) / 3_600_000));
  return {
    title: `Backup overdue: ${r.planName}`,
    body: `“${r.planName}” (${r.repoLabel}) was due ${hours} hour${hours === 1 ? '' : 's'} ago. Open Cairn to run it: backups run only while Cairn is open.`,
  };
}

/** The page's prefs as this worker sees them (the "cairn-ui" database; a test passes its own). */
export interface PrefStore {
  read(keys: string[]): Promise<unknown[]>;
  write(key: string, value: unknown): Promise<void>;
}

/** Reads the page's reminder list from its database without ever creating or upgrading it. */
async function readPrefs(keys: string[]): Promise<unknown[]> {
  const db = await new Promise<IDBDatabase | undefined>((resolve) => {
    const req = indexedDB.open('cairn-ui');
    // No database yet: do not create one (the page's own upgrade must make it).
    req.onupgradeneeded = () => req.transaction?.abort();
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(undefined);
  });
  if (!db) return keys.map(() => undefined);
  try {
    if (!db.objectStoreNames.contains('prefs')) return keys.map(() => undefined);
    const tx = db.transaction('prefs');
    return await Promise.all(
      keys.map(
        (k) =>
          new Promise<unknown>((resolve) => {
            const r = tx.objectStore('prefs').get(k);
            r.onsuccess = () => resolve(r.result);
            r.onerror = () => resolve(undefined);
          }),
      ),
    );
  } finally {
    db.close();
  }
}

async function writePref(key: string, value: unknown): Promise<void> {
  const db = await new Promise<IDBDatabase | undefined>((resolve) => {
    const req = indexedDB.open('cairn-ui');
    req.onupgradeneeded = () => req.transaction?.abort();
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(undefined);
  });
  if (!db) return;
  try {
    if (!db.objectStoreNames.contains('prefs')) return;
    await new Promise<void>((resolve) => {
      const tx = db.transaction('prefs', 'readwrite');
      tx.objectStore('prefs').put(value, key);
      tx.oncomplete = () => resolve();
      tx.onerror = tx.onabort = () => resolve();
    });
  } finally {
    db.close();
  }
}

const idbPrefs: PrefStore = { read: readPrefs, write: writePref };

/** What the last wake-up did: how many wake-ups have been handled and when the last one ended. */
export interface ReminderCheck {
  count: number;
  at: number;
}
export const REMINDER_CHECK_PREF = 'reminderCheck';

// Wake-ups are handled one at a time: two that overlapped would both read the record of what
// was already mentioned before either wrote it, and mention the same missed run twice.
let queue: Promise<unknown> = Promise.resolve();

/** The periodicsync handler's work: notify each plan that became overdue since the last wake-up. */
export function remindOverdue(
  show: (title: string, body: string, tag: string) => Promise<void>,
  now = Date.now(),
  prefs: PrefStore = idbPrefs,
): Promise<number> {
  const run = queue.then(() => remindOnce(show, now, prefs));
  queue = run.catch(() => undefined);
  return run;
}

async function remindOnce(show: (title: string, body: string, tag: string) => Promise<void>, now: number, prefs: PrefStore): Promise<number> {
  const [list, reminded, check] = (await prefs.read([REMINDERS_PREF, REMINDED_PREF, REMINDER_CHECK_PREF])) as [
    Reminder[] | undefined,
    Reminded | undefined,
    ReminderCheck | undefined,
  ];
  let shown = 0;
  if (Array.isArray(list) && list.length > 0) {
    const r = overdueNow(list, reminded ?? {}, now);
    for (const x of r.show) {
      const t = reminderText(x, now);
      await show(t.title, t.body, `overdue-${x.planId}`);
    }
    if (r.show.length) await prefs.write(REMINDED_PREF, r.reminded);
    shown = r.show.length;
  }
  await prefs.write(REMINDER_CHECK_PREF, { count: (check?.count ?? 0) + 1, at: now } satisfies ReminderCheck);
  return shown;
}
