// restic's dry-run backend (internal/backend/dryrun): reads go through, writes and removals do
// nothing. A --dry-run rewrite or repair computes every new tree and snapshot ID and says what
// it would do, and the repository stays as it was.

import type { Backend } from './backend';

export function dryRunBackend(inner: Backend): Backend {
  return {
    location: inner.location,
    connections: inner.connections,
    load: (h, opts) => inner.load(h, opts),
    stat: (h, opts) => inner.stat(h, opts),
    list: (type, opts) => inner.list(type, opts),
    save: async () => {},
    remove: async () => {},
    close: () => inner.close(),
  };
}
