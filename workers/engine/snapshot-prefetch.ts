// The snapshot files, fetched while an open derives the password's key: listing and fetching
// them needs no key (only decrypting them does), and the key's scrypt is most of an open. The
// session's first listing takes what was fetched here (each file once); everything after it
// reads the backend as before. A failed open stops the fetching.
// Invariant: only sealed bytes are held, never longer than until the session's first listing.

import type { Backend } from '../../core/backend/backend';
import { Semaphore } from '../../core/concurrency/semaphore';
import { isID, type ID } from '../../core/id';

/**
 * Snapshot files fetched at once. Browsers open at most six connections to one host: the rest
 * stay free for the open's own requests (key files, config).
 */
const AT_ONCE = 4;

export interface SnapshotPrefetch {
  /** The snapshot IDs as listed, once each file's fetch is under way. */
  readonly ids: Promise<ID[]>;
  /** A listed file's bytes (its fetch; a failed one rejects as the load would), or undefined. */
  file(id: ID): Promise<Uint8Array> | undefined;
  /** Stops fetching (the open failed): fetches not yet started never start. */
  stop(): void;
}

export function prefetchSnapshots(backend: Backend): SnapshotPrefetch {
  const stopped = new AbortController();
  const signal = stopped.signal;
  const files = new Map<ID, Promise<Uint8Array>>();
  const slots = new Semaphore(AT_ONCE);
  const ids = (async () => {
    const out: ID[] = [];
    for await (const fi of backend.list('snapshots', { signal })) if (isID(fi.name)) out.push(fi.name);
    for (const id of out) {
      const bytes = slots.run(() => backend.load({ type: 'snapshots', name: id }, { signal }), signal);
      bytes.catch(() => {}); // answered to whoever takes it
      files.set(id, bytes);
    }
    return out;
  })();
  ids.catch(() => {});
  return {
    ids,
    file: (id) => files.get(id),
    stop: () => stopped.abort(),
  };
}
