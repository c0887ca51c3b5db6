// Where the user is, kept in the URL's hash so a reload (or an installed app's start) comes back
// to the same snapshot and folder once the repository is unlocked, and the browser's back
// button works. No secrets or file contents ever go into the URL: only snapshot IDs and paths.

export type Route =
  | { name: 'backup' }
  | { name: 'snapshots' }
  | { name: 'snapshot'; id: string; path: string[] }
  | { name: 'search'; q: string }
  | { name: 'versions'; path: string[] }
  | { name: 'diff'; a: string; b: string };

export const DEFAULT_ROUTE: Route = { name: 'snapshots' };

const enc = (parts: string[]) => parts.map(encodeURIComponent).join('/');
const dec = (parts: string[]) => parts.filter((p) => p !== '').map(decodeURIComponent);

export function parseHash(hash: string): Route {
  const [pathPart = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [head = '', ...rest] = pathPart.split('/');
  try {
    switch (head) {
      case 'backup':
        return { name: 'backup' };
      case 'snapshots':
        return { name: 'snapshots' };
      case 'snapshot':
        if (rest[0]) return { name: 'snapshot', id: decodeURIComponent(rest[0]), path: dec(rest.slice(1)) };
        break;
      case 'search':
        return { name: 'search', q: new URLSearchParams(query).get('q') ?? '' };
      case 'versions':
        return { name: 'versions', path: dec(rest) };
      case 'diff':
        return { name: 'diff', a: decodeURIComponent(rest[0] ?? ''), b: decodeURIComponent(rest[1] ?? '') };
    }
  } catch {
    // a malformed %-escape: fall through to the default view
  }
  return DEFAULT_ROUTE;
}

export function formatRoute(r: Route): string {
  switch (r.name) {
    case 'backup':
    case 'snapshots':
      return `#/${r.name}`;
    case 'snapshot':
      return `#/snapshot/${enc([r.id, ...r.path])}`;
    case 'search':
      return r.q ? `#/search?${new URLSearchParams({ q: r.q })}` : '#/search';
    case 'versions':
      return `#/versions/${enc(r.path)}`;
    case 'diff':
      return `#/diff/${enc([r.a, r.b].filter(Boolean))}`;
  }
}

class Router {
  #route = $state.raw<Route>(typeof location === 'undefined' ? DEFAULT_ROUTE : parseHash(location.hash));

  constructor() {
    if (typeof window === 'undefined') return;
    const sync = () => (this.#route = parseHash(location.hash));
    window.addEventListener('hashchange', sync);
    window.addEventListener('popstate', sync);
  }

  get route(): Route {
    return this.#route;
  }

  go(r: Route, opts: { replace?: boolean } = {}): void {
    const hash = formatRoute(r);
    if (opts.replace) history.replaceState(history.state, '', hash);
    else if (location.hash !== hash) history.pushState(history.state, '', hash);
    this.#route = r;
  }
}

export const router = new Router();
