// The service worker: precaches the app shell, the worker chunks and the WASM (so the app opens
// and unlocks offline), serves index.html for navigations while offline, and streams downloads
// from the engine worker (download-route.ts). In Chromium the app's address and its hashed
// assets are answered by static routes without starting this worker (static-routes.ts).
// No app logic lives here.

/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { downloadId, downloadResponse, installDownloadRoute } from './download-route';
import { installStaticRoutes } from './static-routes';

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
