// The one module that talks to the browser's Notification API and Periodic Background Sync.
// Permission is asked only when the user turns notifications on (a click), never at load.
// Notifications go through the service worker's registration where there is one (the only
// way on Android, and what a Periodic Background Sync wake-up uses too), else `new Notification`.

const PERIODIC_SYNC_TAG = 'cairn-overdue-plans';

export function notificationPermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

export async function requestNotificationPermission(): Promise<NotificationPermission | 'unsupported'> {
  if (typeof Notification === 'undefined') return 'unsupported';
  if (Notification.permission !== 'default') return Notification.permission;
  try {
    return await Notification.requestPermission();
  } catch {
    return Notification.permission;
  }
}

/** Shows a notification if permission is granted; resolves false when nothing was shown. */
export async function showNotification(title: string, body: string, tag: string): Promise<boolean> {
  if (notificationPermission() !== 'granted') return false;
  const options: NotificationOptions = { body, tag, icon: '/icons/cairn-192.png', badge: '/icons/cairn-192.png' };
  try {
    const reg = 'serviceWorker' in navigator ? await navigator.serviceWorker.getRegistration() : undefined;
    if (reg?.active) {
      await reg.showNotification(title, options);
      return true;
    }
    new Notification(title, options);
    return true;
  } catch {
    return false;
  }
}

type PeriodicSyncManager = { register(tag: string, opts: { minInterval: number }): Promise<void>; unregister(tag: string): Promise<void> };

/** What this browser lets the app do while it is not open. */
export interface BackgroundAbility {
  /** Periodic Background Sync exists here (Chromium). */
  periodicSync: boolean;
  /** …and is allowed for this site (Chromium grants it to installed apps only). */
  periodicSyncGranted: boolean;
  /** The app runs as an installed app (its own window). */
  installed: boolean;
}

export async function backgroundAbility(): Promise<BackgroundAbility> {
  const installed = typeof matchMedia === 'function' && matchMedia('(display-mode: standalone)').matches;
  const reg = 'serviceWorker' in navigator ? await navigator.serviceWorker.getRegistration().catch(() => undefined) : undefined;
  const periodicSync = !!reg && 'periodicSync' in reg;
  let periodicSyncGranted = false;
  if (periodicSync) {
    try {
      const state = await navigator.permissions.query({ name: 'periodic-background-sync' as PermissionName });
      periodicSyncGranted = state.state === 'granted';
    } catch {
      periodicSyncGranted = false;
    }
  }
  return { periodicSync, periodicSyncGranted, installed };
}

/**
 * Asks the browser to wake the service worker now and then (at most every 12 hours; the
 * browser decides when) so it can notice overdue plans and say so. Only where it is granted.
 */
export async function registerPeriodicCheck(): Promise<boolean> {
  const ability = await backgroundAbility();
  if (!ability.periodicSyncGranted) return false;
  try {
    const reg = (await navigator.serviceWorker.ready) as ServiceWorkerRegistration & { periodicSync?: PeriodicSyncManager };
    await reg.periodicSync?.register(PERIODIC_SYNC_TAG, { minInterval: 12 * 3_600_000 });
    return true;
  } catch {
    return false;
  }
}
