// Routes as the URL's hash spells them. A plain module, without Svelte, so the start-up script
// (web/preboot.ts) can read the hash before the UI loads; web/state/router.svelte.ts keeps the
// current route.

export type Route =
  | { name: 'dashboard' }
  | { name: 'backup' }
  | { name: 'plans' }
  /** A plan's form: an existing plan's ID, or 'new'. */
  | { name: 'plan'; id: string }
  | { name: 'history'; plan?: string; kind?: string }
  | { name: 'settings' }
  | { name: 'snapshots' }
  | { name: 'snapshot'; id: string; path: string[] }
  | { name: 'search'; q: string }
  | { name: 'versions'; path: string[] }
  | { name: 'diff'; a: string; b: string }
  /** The repository's tools: its health (check), keys, recovery sheet and retention. */
  | { name: 'repository'; section: RepoSection };

export const REPO_SECTIONS = ['health', 'keys', 'sheet', 'retention'] as const;
export type RepoSection = (typeof REPO_SECTIONS)[number];

export const DEFAULT_ROUTE: Route = { name: 'snapshots' };

const enc = (parts: string[]) => parts.map(encodeURIComponent).join('/');
const dec = (parts: string[]) => parts.filter((p) => p !== '').map(decodeURIComponent);

export function parseHash(hash: string): Route {
  const [pathPart = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [head = '', ...rest] = pathPart.split('/');
  try {
    switch (head) {
      case 'dashboard':
      case 'plans':
      case 'settings':
      case 'backup':
        return { name: head };
      case 'plan':
        if (rest[0]) return { name: 'plan', id: decodeURIComponent(rest[0]) };
        break;
      case 'history': {
        const q = new URLSearchParams(query);
        return { name: 'history', plan: q.get('plan') || undefined, kind: q.get('kind') || undefined };
      }
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
      case 'repository':
        return { name: 'repository', section: REPO_SECTIONS.find((x) => x === rest[0]) ?? 'health' };
    }
  } catch {
    // a malformed %-escape: fall through to the default view
  }
  return DEFAULT_ROUTE;
}

export function formatRoute(r: Route): string {
  switch (r.name) {
    case 'dashboard':
    case 'plans':
    case 'settings':
    case 'backup':
    case 'snapshots':
      return `#/${r.name}`;
    case 'plan':
      return `#/plan/${encodeURIComponent(r.id)}`;
    case 'history': {
      const q = new URLSearchParams();
      if (r.plan) q.set('plan', r.plan);
      if (r.kind) q.set('kind', r.kind);
      return q.size ? `#/history?${q}` : '#/history';
    }
    case 'snapshot':
      return `#/snapshot/${enc([r.id, ...r.path])}`;
    case 'search':
      return r.q ? `#/search?${new URLSearchParams({ q: r.q })}` : '#/search';
    case 'versions':
      return `#/versions/${enc(r.path)}`;
    case 'diff':
      return `#/diff/${enc([r.a, r.b].filter(Boolean))}`;
    case 'repository':
      return `#/repository/${r.section}`;
  }
}
