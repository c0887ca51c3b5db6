// The service worker: precaches the app shell, the worker chunks and the WASM (so the app opens
// and unlocks offline), serves index.html for navigations while offline, and streams downloads
// from the engine worker (download-route.ts). In Chromium the app's address and its hashed
// assets are answered by static routes without starting this worker (static-routes.ts).
// Woken by Periodic Background Sync (an installed app in Chromium), it mentions overdue plans
// (reminders.ts); it never backs anything up. No app logic lives here.

/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { downloadId, downloadResponse, installDownloadRoute } from './download-route';
import { installStaticRoutes } from './static-routes';
import { remindOverdue } from './reminders';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] };

// First: downloads must never be answered from the precache or the navigation fallback.
installDownloadRoute(self);
self.addEventListener('fetch', (ev: FetchEvent) => {
  const id = downloadId(new URL(ev.request.url));
  if (id) ev.respondWith(downloadResponse(id));
});

const manifest = self.__WB_MANIFEST; // the build's one injection point
// Before workbox's: the app's start, answered by the browser without this worker.
installStaticRoutes(self, manifest);
precacheAndRoute(manifest);
cleanupOutdatedCaches();
registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html'), { denylist: [/\/__cairn\//] }));

// workbox-window's messageSkipWaiting() (the page's "update now" button).
self.addEventListener('message', (ev: ExtendableMessageEvent) => {
  if ((ev.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
self.addEventListener('activate', (ev: ExtendableEvent) => ev.waitUntil(self.clients.claim()));

// Periodic Background Sync: the page registers 'cairn-overdue-plans' where the browser grants it.
self.addEventListener('periodicsync', (ev: Event) => {
  const e = ev as ExtendableEvent & { tag?: string };
  if (e.tag !== 'cairn-overdue-plans') return;
  e.waitUntil(
    remindOverdue((title, body, tag) => self.registration.showNotification(title, { body, tag, icon: 'icons/cairn-192.png', badge: 'icons/cairn-192.png' })),
  );
});

// A click on one of the app's notifications brings the app forward (or opens it).
self.addEventListener('notificationclick', (ev: NotificationEvent) => {
  ev.notification.close();
  ev.waitUntil(
    (async () => {
      const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const client = open[0];
      if (client) await client.focus();
      else await self.clients.openWindow(self.registration.scope + '#/dashboard');
    })(),
  );
});
