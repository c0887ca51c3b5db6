// Loads the blobs of the files coming next while the current one is written: for streams
// that must go in file order (a ZIP), where a file-by-file loop waits for one small blob at a
// time. A browser backend answers a small read after a round trip to the browser process, so
// 5000 small files cost 5000 waits in a row; with several in flight they overlap.
//
// The window spans files: up to `blobs` loads in flight, and no more than `bytes` of their
// plaintext held (a single blob larger than that still loads, alone). Blobs start in file
// order, so the file being written never waits behind a later one's.

import { CairnError } from '../errors';
import type { Node } from '../data/node';
import type { Repository } from '../repository/repository';
import { plainLength } from '../repository/blob-codec';

export interface LookaheadOptions {
  signal?: AbortSignal;
  /** Blob loads in flight at most (default 16). */
  blobs?: number;
  /** Plaintext bytes of blobs loaded ahead at most (default 32 MiB). */
  bytes?: number;
}

interface Load {
  id?: string;
  size: number;
  bytes?: Promise<Uint8Array>;
  /** Counted in the budget while started and not yet handed over or dropped. */
  counted?: boolean;
}

/**
 * Passes `items` through in order, each with `content`: its file's verified bytes, blob by
 * blob (nothing for other nodes). Take each item's content before the next item, or leave it:
 * what it left unread is dropped when the next item is asked for.
 */
export async function* lookahead<T extends { node: Node }>(repo: Repository, items: AsyncIterable<T>, opts: LookaheadOptions = {}): AsyncGenerator<T & { content: AsyncGenerator<Uint8Array> }> {
  const maxBlobs = Math.max(1, opts.blobs ?? 16);
  const maxBytes = opts.bytes ?? 32 << 20;
  const it = items[Symbol.asyncIterator]();
  type Entry = { item: T; loads: Load[]; next: number };
  /** The file being handed over (its later blobs load first), then the ones read ahead. */
  let current: Entry | undefined;
  const window: Entry[] = [];
  let done = false;
  let inFlight = 0;
  let held = 0;

  const loadsOf = (node: Node): Load[] => {
    if (node.type !== 'file') return [];
    return (node.content ?? []).map((id) => {
      const loc = repo.lookupBlob('data', id);
      if (!loc) {
        const bytes = Promise.reject(new CairnError('BLOB_NOT_FOUND', `data blob ${id.slice(0, 8)} is not in any index`, { detail: { blob: id } }));
        bytes.catch(() => {}); // observed when its turn comes
        return { size: 0, bytes };
      }
      return { id, size: plainLength(loc.length, loc.uncompressedLength) };
    });
  };
  const start = (l: Load) => {
    l.bytes = repo.loadBlob('data', l.id!, opts.signal);
    l.bytes.catch(() => {}); // observed when its turn comes
    l.counted = true;
    inFlight++;
    held += l.size;
  };
  /** Starts what the budget allows, in order. */
  const fill = () => {
    for (const w of current ? [current, ...window] : window) {
      for (; w.next < w.loads.length; w.next++) {
        const l = w.loads[w.next]!;
        if (l.bytes) continue; // failed at lookup: nothing to load
        if (inFlight >= maxBlobs || (held + l.size > maxBytes && inFlight > 0)) return;
        start(l);
      }
    }
  };
  /** Reads items ahead while blobs could start for them. */
  const pull = async () => {
    while (!done && inFlight < maxBlobs && held < maxBytes && window.length < maxBlobs * 4) {
      const r = await it.next();
      if (r.done) {
        done = true;
        break;
      }
      window.push({ item: r.value, loads: loadsOf(r.value.node), next: 0 });
      fill();
    }
  };
  /** Takes one load off the budget as it is handed over (or dropped). */
  const settle = (l: Load) => {
    if (!l.counted) return;
    l.counted = false;
    inFlight--;
    held -= l.size;
  };

  try {
    for (;;) {
      await pull();
      const w = window.shift();
      current = w;
      if (!w) return;
      let i = 0;
      async function* content(): AsyncGenerator<Uint8Array> {
        for (; i < w!.loads.length; i++) {
          const l = w!.loads[i]!;
          if (!l.bytes) {
            start(l); // the budget was spent on earlier files; this one goes first now
            w!.next = i + 1;
          }
          try {
            yield await l.bytes!;
          } finally {
            settle(l);
            fill();
          }
        }
      }
      yield { ...w.item, content: content() };
      // What the consumer left unread: its loads finish unseen; they no longer count.
      for (; i < w.loads.length; i++) settle(w.loads[i]!);
      w.next = w.loads.length;
      current = undefined;
      fill();
    }
  } finally {
    await it.return?.();
  }
}
