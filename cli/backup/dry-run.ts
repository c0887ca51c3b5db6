// `backup --dry-run` (restic's dryrun backend): everything is computed as in a real backup —
// chunks hashed, blobs sealed, trees, index and snapshot encoded — but nothing is stored.
// Reads pass through, so the parent, the index and the snapshots are the repository's.

import type { Backend } from '../../core/backend/backend';

export function dryRunBackend(inner: Backend): Backend {
  return {
    location: inner.location,
    connections: inner.connections,
    close: () => inner.close(),
    load: (h, o) => inner.load(h, o),
    stat: (h, o) => inner.stat(h, o),
    list: (t, o) => inner.list(t, o),
    save: async () => {},
    remove: async () => {},
  };
}
