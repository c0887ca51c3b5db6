// The key the offline cache and remembered keys are filed under (never holds a secret). Its own
// module so the page can compute it (for the kept listing at start-up) without the backends.

import type { RepoLocation } from './api';

export function locationKey(loc: RepoLocation): string {
  switch (loc.kind) {
    case 'opfs':
      return `opfs:${loc.name}`;
    case 'folder':
      return `folder:${loc.name}`;
    case 's3':
      return `s3:${loc.endpoint.replace(/\/+$/, '')}/${loc.bucket}/${loc.prefix.replace(/^\/+|\/+$/g, '')}`;
  }
}
