// Registers the service worker (sw/sw.ts, built by vite-plugin-pwa) with workbox-window. It
// precaches the app shell and WASM so the app opens offline, and streams downloads. A new
// version waits until the user reloads (no surprise reloads in the middle of a backup).

import { Workbox } from 'workbox-window';

export interface ServiceWorkerStatus {
  /** A newer version is installed and waiting; `activate()` switches to it and reloads. */
  onUpdateReady?: (activate: () => void) => void;
}

export async function registerServiceWorker(status: ServiceWorkerStatus = {}): Promise<void> {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  const wb = new Workbox(`${import.meta.env.BASE_URL}sw.js`, { scope: import.meta.env.BASE_URL });
  wb.addEventListener('waiting', () => {
    status.onUpdateReady?.(() => {
      wb.addEventListener('controlling', () => location.reload());
      wb.messageSkipWaiting();
    });
  });
  try {
    await wb.register();
  } catch (e) {
    // Private windows and some browsers refuse service workers; the app still works online.
    console.warn('service worker not registered:', e);
  }
}
