// Static routes (Chromium 123+, InstallEvent.addRoutes): the browser answers the app's start
// from Cache Storage itself, without starting this worker or running its fetch handler.
// The warm start's critical path (navigation → page script → its chunks) went through this
// worker several times; on a loaded 2-core machine each hop waits for its
// thread. Where addRoutes is missing (Firefox, Safari) workbox's routes below serve as before.
//
// - The app's own address (`/`, no query): index.html, copied at install into a cache named
//   after its revision, so a waiting new version never changes what the running one serves;
//   `activate` deletes the other versions' copies.
// - `/assets/*`: the content-hashed files of the same version, copied into that cache too
//   (workbox keeps its own copies for the fetch handler). One missing there goes to the network.
// Everything else (downloads under /__cairn/, other navigations) still reaches the fetch handler.

/// <reference lib="webworker" />

type RouterSource = 'cache' | 'network' | 'fetch-event' | { cacheName: string };
interface RouterRule {
  condition: { urlPattern?: unknown; requestMethod?: string; requestMode?: string };
  source: RouterSource;
}
type RoutableInstall = ExtendableEvent & { addRoutes?: (rules: RouterRule | RouterRule[]) => Promise<void> };

const SHELL_PREFIX = 'cairn-shell-';

/** A copy to keep: Vary dropped, because the browser's lookup uses the page's own request,
 *  and module scripts send an Origin header that a stored `Vary: Origin` would not match. */
async function keepable(res: Response): Promise<Response> {
  const headers = new Headers(res.headers);
  headers.delete('Vary');
  return new Response(await res.arrayBuffer(), { status: res.status, statusText: res.statusText, headers });
}

export function installStaticRoutes(self: ServiceWorkerGlobalScope, manifest: readonly (string | { url: string; revision: string | null })[]): void {
  const urls = manifest.map((e) => (typeof e === 'string' ? e : e.url));
  const entry = manifest.find((e) => typeof e === 'object' && e.url === 'index.html');
  const revision = typeof entry === 'object' ? entry.revision : null;
  const URLPatternCtor = (self as unknown as { URLPattern?: new (init: Record<string, string>) => unknown }).URLPattern;
  if (!revision || !URLPatternCtor) return;
  const shellCache = SHELL_PREFIX + revision;
  const scope = new URL(self.registration.scope);
  const base = scope.pathname.endsWith('/') ? scope.pathname : scope.pathname + '/';

  self.addEventListener('install', (ev) => {
    const install = ev as RoutableInstall;
    if (typeof install.addRoutes !== 'function') return;
    // Routes take effect when this version activates, after the copies below are in place. A
    // browser that refuses these rules (an older router without named caches) installs
    // without them: workbox's routes serve as everywhere else.
    let routes: Promise<void>;
    try {
      routes = install.addRoutes([
        {
          condition: { urlPattern: new URLPatternCtor({ pathname: base, search: '' }), requestMethod: 'GET', requestMode: 'navigate' },
          source: { cacheName: shellCache },
        },
        { condition: { urlPattern: new URLPatternCtor({ pathname: `${base}assets/*`, search: '' }), requestMethod: 'GET' }, source: { cacheName: shellCache } },
      ]);
    } catch (e) {
      routes = Promise.reject(e);
    }
    install.waitUntil(
      (async () => {
        if (
          !(await routes.then(
            () => true,
            () => false,
          ))
        )
          return;
        const cache = await caches.open(shellCache);
        // The files of the version being installed, as the server has them now.
        const copy = async (path: string, key: string) => {
          const res = await fetch(new URL(path, scope).href, { cache: 'reload' });
          if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
          await cache.put(new URL(key, scope).href, await keepable(res));
        };
        await copy('index.html', base);
        await Promise.all(urls.filter((u) => u.startsWith('assets/')).map((u) => copy(u, u)));
      })(),
    );
  });

  self.addEventListener('activate', (ev) => {
    ev.waitUntil(
      (async () => {
        for (const name of await caches.keys()) if (name.startsWith(SHELL_PREFIX) && name !== shellCache) await caches.delete(name);
      })(),
    );
  });
}
