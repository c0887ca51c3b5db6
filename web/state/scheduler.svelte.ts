// The clock of the plans, while the app is open (a tab or the installed app's window): every
// half minute, and at each plan's due time, it looks at the open repository's plans. A plan
// that comes due while the repository is open runs (./runner.svelte.ts); one that came due
// before — the app was closed, or the repository locked — is a missed run: offered to the user,
// or run at once when the settings say so. Plans of any repository that are overdue by more
// than the set time are mentioned once in a notification, and their due times are kept for the
// service worker, which mentions them when Periodic Background Sync wakes it (sw/reminders.ts).
// Nothing runs while the browser is closed, and the app never says it would.

import { untrack } from 'svelte';
import { REMINDED_PREF, REMINDERS_PREF, type Reminded, type Reminder } from '../../sw/reminders';
import { getPref, setPref } from '../lib/db';
import { registerPeriodicCheck, showNotification } from '../lib/notify';
import { planStatus, type Plan, type PlanStatus } from '../lib/plans';
import { deviceTimeZone } from '../lib/schedule';
import { plans } from './plans.svelte';
import { remembered } from './remembered.svelte';
import { runner } from './runner.svelte';
import { session } from './session.svelte';
import { settings } from './settings.svelte';

const TICK_MS = 30_000;

class Scheduler {
  #now = $state(Date.now());
  #missed = $state.raw<string[]>([]);
  /** When the open repository was opened: a plan due before then was missed. */
  #openedAt = 0;
  #openRepo: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #reminded: Reminded = {};
  #remindersWritten = '';

  /** The time of the last look, for the views' "in 2 hours" (moves every half minute). */
  get now(): number {
    return this.#now;
  }
  /** Plans of the open repository whose run was missed, waiting for "Run now" or "Skip". */
  get missed(): string[] {
    return this.#missed;
  }

  status(p: Plan): PlanStatus {
    return planStatus(p, this.#now, deviceTimeZone(), settings.overdueAfterMs);
  }

  async start(): Promise<void> {
    this.#reminded = (await getPref<Reminded>(REMINDED_PREF).catch(() => undefined)) ?? {};
    // Where the browser grants it (an installed app in Chromium), it wakes the service worker now
    // and then to mention overdue plans while Cairn is closed.
    if (settings.notifications) void registerPeriodicCheck();
    document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && this.tick());
    $effect.root(() => {
      // A plan made, changed or run, or the overdue settings changed: look again.
      $effect(() => {
        void plans.items;
        void settings.overdueHours;
        void settings.notifications;
        untrack(() => this.tick());
      });
      $effect(() => {
        const open = session.isOpen ? session.entry?.id : undefined;
        untrack(() => this.repositoryChanged(open));
      });
    });
  }

  /** Called when a repository opens (or closes: undefined). */
  repositoryChanged(entryId: string | undefined): void {
    if (entryId === this.#openRepo) return;
    this.#openRepo = entryId;
    this.#openedAt = Date.now();
    this.#missed = [];
    runner.clear();
    this.tick();
  }

  /** "Run now" on a missed run (a click: folder permission can be asked). */
  async runMissed(p: Plan): Promise<void> {
    this.#missed = this.#missed.filter((id) => id !== p.id);
    await runner.runNow(p, 'missed');
  }

  /** A missed run taken up another way (its folder chosen again, in a browser that cannot keep it). */
  takeMissed(p: Plan): void {
    this.#missed = this.#missed.filter((id) => id !== p.id);
  }

  async skip(p: Plan): Promise<void> {
    this.#missed = this.#missed.filter((id) => id !== p.id);
    await plans.skip(p.id);
    this.tick();
  }

  tick(): void {
    clearTimeout(this.#timer);
    const now = Date.now();
    this.#now = now;
    let wake = now + TICK_MS;
    for (const p of plans.items) {
      const st = this.status(p);
      if (st.next !== undefined && st.next > now) wake = Math.min(wake, st.next);
      if (st.due && p.repo === this.#openRepo && this.#canRun()) this.#due(p, st.next!);
      if (st.overdueBy !== undefined) this.#mentionOverdue(p, st.next!, now);
    }
    void this.#writeReminders();
    this.#timer = setTimeout(() => this.tick(), Math.max(1000, wake - now + 50));
  }

  #canRun(): boolean {
    return session.isOpen && !session.info?.offline;
  }

  #due(p: Plan, dueAt: number): void {
    if (runner.isPending(p.id) || this.#missed.includes(p.id)) return;
    if (dueAt >= this.#openedAt) runner.enqueue(p.id, 'schedule');
    else if (settings.missedRuns === 'run') runner.enqueue(p.id, 'missed');
    else this.#missed = [...this.#missed, p.id];
  }

  #mentionOverdue(p: Plan, dueAt: number, now: number): void {
    if (this.#reminded[p.id] === dueAt || !settings.notifications) return;
    this.#reminded = { ...this.#reminded, [p.id]: dueAt };
    void setPref(REMINDED_PREF, this.#reminded);
    const hours = Math.max(1, Math.round((now - dueAt) / 3_600_000));
    const where = remembered.byId(p.repo)?.label ?? 'its repository';
    const body =
      p.repo === this.#openRepo
        ? `“${p.name}” was due ${hours} hour${hours === 1 ? '' : 's'} ago and has not run.`
        : `“${p.name}” was due ${hours} hour${hours === 1 ? '' : 's'} ago. Open “${where}” in Cairn to run it.`;
    void showNotification(`Backup overdue: ${p.name}`, body, `overdue-${p.id}`);
  }

  /** Each scheduled plan's next run, for the service worker's overdue check. */
  async #writeReminders(): Promise<void> {
    const list: Reminder[] = [];
    for (const p of plans.items) {
      const st = this.status(p);
      if (st.next === undefined) continue;
      const repoLabel = remembered.byId(p.repo)?.label ?? '';
      list.push({ planId: p.id, planName: p.name, repoLabel, dueAt: st.next, overdueAt: st.next + settings.overdueAfterMs });
    }
    const json = JSON.stringify(settings.notifications ? list : []);
    if (json === this.#remindersWritten) return;
    this.#remindersWritten = json;
    await setPref(REMINDERS_PREF, JSON.parse(json)).catch(() => {});
  }
}

export const scheduler = new Scheduler();
