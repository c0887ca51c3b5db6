// Where the user is, kept in the URL's hash so a reload (or an installed app's start) comes back
// to the same snapshot and folder once the repository is unlocked, and the browser's back
// button works. No secrets or file contents ever go into the URL: only snapshot IDs and paths.

import { DEFAULT_ROUTE, formatRoute, parseHash, type Route } from '../lib/routes';

export { formatRoute, type Route };

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
