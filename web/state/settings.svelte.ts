// Settings of this browser profile, kept on this device: the host name new snapshots carry,
// notifications, what to do about a run missed while the app was closed, and when a plan
// counts as overdue.

import { getPref, setPref } from '../lib/db';
import { hostNameProblem, thisBrowserHostName } from '../lib/host-name';
import { notificationPermission, requestNotificationPermission } from '../lib/notify';

export type MissedRuns = 'ask' | 'run';

interface StoredSettings {
  hostName?: string;
  notifications?: boolean;
  missedRuns?: MissedRuns;
  overdueHours?: number;
}

const PREF = 'settings';
const DEFAULT_OVERDUE_HOURS = 24;

class Settings {
  #loaded = $state(false);
  #hostName = $state<string | undefined>();
  #notifications = $state(false);
  #missedRuns = $state<MissedRuns>('ask');
  #overdueHours = $state(DEFAULT_OVERDUE_HOURS);
  readonly defaultHostName = typeof navigator === 'undefined' ? 'browser' : thisBrowserHostName();

  get loaded(): boolean {
    return this.#loaded;
  }
  /** The host name new snapshots get (restic's --host). */
  get hostName(): string {
    return this.#hostName ?? this.defaultHostName;
  }
  get hostNameIsDefault(): boolean {
    return this.#hostName === undefined;
  }
  /** The user turned notifications on (and the browser may still refuse them: see notificationPermission). */
  get notifications(): boolean {
    return this.#notifications;
  }
  get missedRuns(): MissedRuns {
    return this.#missedRuns;
  }
  get overdueHours(): number {
    return this.#overdueHours;
  }
  get overdueAfterMs(): number {
    return this.#overdueHours * 3_600_000;
  }

  async load(): Promise<void> {
    const s = (await getPref<StoredSettings>(PREF)) ?? {};
    this.#hostName = s.hostName;
    this.#notifications = s.notifications ?? false;
    this.#missedRuns = s.missedRuns ?? 'ask';
    this.#overdueHours = s.overdueHours ?? DEFAULT_OVERDUE_HOURS;
    this.#loaded = true;
  }

  /** Sets the host name ('' or the default: back to the default); returns a problem instead when it cannot be used. */
  async setHostName(name: string): Promise<string | undefined> {
    const n = name.trim();
    if (n && n !== this.defaultHostName) {
      const problem = hostNameProblem(n);
      if (problem) return problem;
    }
    this.#hostName = n && n !== this.defaultHostName ? n : undefined;
    await this.#save();
    return undefined;
  }

  /** Turns notifications on (asking the browser for permission: call from a click) or off. */
  async setNotifications(on: boolean): Promise<NotificationPermission | 'unsupported'> {
    const permission = on ? await requestNotificationPermission() : notificationPermission();
    this.#notifications = on && permission === 'granted';
    await this.#save();
    return permission;
  }

  async setMissedRuns(v: MissedRuns): Promise<void> {
    this.#missedRuns = v;
    await this.#save();
  }

  async setOverdueHours(h: number): Promise<void> {
    if (!Number.isFinite(h) || h < 1) return;
    this.#overdueHours = Math.round(h);
    await this.#save();
  }

  async #save(): Promise<void> {
    await setPref(PREF, {
      hostName: this.#hostName,
      notifications: this.#notifications,
      missedRuns: this.#missedRuns,
      overdueHours: this.#overdueHours,
    } satisfies StoredSettings);
  }
}

export const settings = new Settings();
