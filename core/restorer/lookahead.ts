// Loads the blobs of the files coming next while the current one is written: for streams
// that must go in file order (a ZIP), where a file-by-file loop waits for one small blob at a
// time. A browser backend answers each read after a round trip to the browser process, so
// 5000 small files cost 5000 waits in a row.
//
// Blobs read ahead that lie near each other in one pack (a backup stores a folder's files
// near each other, in the order its savers finish them) are read as one range, on either side
// of the blob that starts it, and decoded together: on other threads when a PackDecoder is
// given (as restore does), else here. Ranges start in file order, so the
// file being written never waits behind a later one's. Budget: `ranges` reads in flight, and
// no more than `bytes` of plaintext loaded ahead (a blob larger than that still loads, alone).
// A blob whose range fails is read again alone through Repository.loadBlob, which tries every
// copy the index knows.

import { CairnError } from '../errors';
import type { Node } from '../data/node';
import type { BlobLocation } from '../index/master-index';
import type { Repository } from '../repository/repository';
import { decodeBlob, plainLength } from '../repository/blob-codec';
import type { PackDecoder } from './restorer';

export interface LookaheadOptions {
  signal?: AbortSignal;
  /** Range reads in flight at most (default 8). */
  ranges?: number;
  /** Plaintext bytes loaded ahead at most (default 32 MiB). */
  bytes?: number;
  /** Bytes one range read spans at most (default 4 MiB). */
  rangeBytes?: number;
  /** Decodes ranges of at least 64 KiB elsewhere (other threads); without it, here. */
  decodePack?: PackDecoder;
  /** Have the PackDecoder checksum each blob too (CRC-32, see knownCrc). */
  crc?: boolean;
}

/** CRC-32s of handed-over blobs computed on the decode threads. */
const crcs = new WeakMap<Uint8Array, number>();

/** The CRC-32 of a blob lookahead() handed over, if a decode thread computed it. */
export function knownCrc(chunk: Uint8Array): number | undefined {
  return crcs.get(chunk);
}

/** Loads read ahead that one range looks through for blobs of its pack. */
const SCAN = 1024;
/** Smaller ranges are decoded here: a trip to another thread would cost about as much. */
const DECODE_ELSEWHERE = 64 << 10;

interface Load {
  id: string;
  loc?: BlobLocation;
  size: number;
  bytes?: Promise<Uint8Array>;
  /** Counted in `held` while started and not yet handed over or dropped. */
  counted?: boolean;
}

type Entry<T> = { item: T; loads: Load[]; next: number };

/**
 * Passes `items` through in order, each with `content`: its file's verified bytes, blob by
 * blob (nothing for other nodes). Take each item's content before the next item, or leave it:
 * what it left unread is dropped when the next item is asked for.
 */
export function lookahead<T extends { node: Node }>(
  repo: Repository,
  items: AsyncIterable<T>,
  opts: LookaheadOptions = {},
): AsyncGenerator<T & { content: AsyncGenerator<Uint8Array> }> {
  return new Lookahead(repo, items[Symbol.asyncIterator](), opts).run();
}

/** The window of items read ahead and the range reads in flight for them. */
class Lookahead<T extends { node: Node }> {
  readonly #maxRanges: number;
  readonly #maxBytes: number;
  readonly #rangeBytes: number;
  /**
   * Budget a range needs free before it starts (the file being written excepted, see content),
   * so that a range started once the budget was full can take more than the blob or two whose
   * handing over freed it.
   */
  readonly #roomToStart: number;
  /** The file being handed over (its later blobs load first), then the ones read ahead. */
  #current: Entry<T> | undefined;
  readonly #window: Entry<T>[] = [];
  /** window[0 … started) have all their loads started. */
  #started = 0;
  #done = false;
  #ranges = 0;
  #held = 0;
  /** Plaintext bytes, and count, of the loads read ahead but not started. */
  #queued = 0;
  #queuedLoads = 0;
  /** Set once the consumer is gone: a read finishing later starts no more. */
  #closed = false;

  constructor(
    private readonly repo: Repository,
    private readonly it: AsyncIterator<T>,
    private readonly opts: LookaheadOptions,
  ) {
    this.#maxRanges = Math.max(1, opts.ranges ?? 8);
    this.#maxBytes = opts.bytes ?? 32 << 20;
    this.#rangeBytes = opts.rangeBytes ?? 4 << 20;
    this.#roomToStart = Math.min(this.#rangeBytes, this.#maxBytes >> 2);
  }

  async *run(): AsyncGenerator<T & { content: AsyncGenerator<Uint8Array> }> {
    try {
      for (;;) {
        await this.#pull();
        const w = this.#window.shift();
        this.#started = Math.max(0, this.#started - 1);
        this.#current = w;
        if (!w) return;
        const cursor = { i: 0 };
        yield { ...w.item, content: this.#content(w, cursor) };
        this.#drop(w, cursor.i);
        this.#current = undefined;
        this.#fill();
      }
    } finally {
      this.#closed = true;
      await this.it.return?.();
    }
  }

  /** One file's blobs in order, each waited for; `cursor.i` tells how far the consumer got. */
  async *#content(w: Entry<T>, cursor: { i: number }): AsyncGenerator<Uint8Array> {
    for (; cursor.i < w.loads.length; cursor.i++) {
      const l = w.loads[cursor.i]!;
      if (!l.bytes) this.#startRange(w, cursor.i, -1); // the budget went to earlier files; this one goes first now
      try {
        yield await l.bytes!;
      } finally {
        this.#settle(l);
        this.#fill();
      }
    }
  }

  /** What the consumer left unread (from load `i`): its loads finish unseen (or never start); they no longer count. */
  #drop(w: Entry<T>, i: number): void {
    for (; i < w.loads.length; i++) {
      const l = w.loads[i]!;
      if (l.bytes) this.#settle(l);
      else {
        this.#queued -= l.size;
        this.#queuedLoads--;
        l.bytes = Promise.resolve(new Uint8Array(0)); // never started now: a later range skips it
      }
    }
    w.next = w.loads.length;
  }

  #loadsOf(node: Node): Load[] {
    if (node.type !== 'file') return [];
    return (node.content ?? []).map((id) => {
      const loc = this.repo.lookupBlob('data', id);
      if (loc) return { id, loc, size: plainLength(loc.length, loc.uncompressedLength) };
      const bytes = Promise.reject(new CairnError('BLOB_NOT_FOUND', `data blob ${id.slice(0, 8)} is not in any index`, { detail: { blob: id } }));
      bytes.catch(() => {}); // observed when its turn comes
      return { id, size: 0, bytes };
    });
  }

  /** The loads from `e.loads[from]` on in order (this file's, then the next files'); `k`: e's place in the window, -1 for `current`. */
  *#following(e: Entry<T>, from: number, k: number): Generator<Load> {
    for (let i = from; i < e.loads.length; i++) yield e.loads[i]!;
    for (let j = Math.max(k + 1, this.#started); j < this.#window.length; j++) {
      const w = this.#window[j]!;
      for (let i = w.next; i < w.loads.length; i++) yield w.loads[i]!;
    }
  }

  /**
   * The loads one range starting at `e.loads[i]` takes along: the blobs read ahead that lie in
   * the same pack within `rangeBytes` of it, on either side (a backup stores a folder's files
   * in the order its savers finish them, not in name order: taking only what lay after the
   * first, ranges of many small files held only a few blobs each). A blob needed twice is read and decoded once: its other loads are `twins`.
   */
  #members(e: Entry<T>, i: number, k: number) {
    const first = e.loads[i]!;
    const loc = first.loc!;
    const members: Load[] = [];
    /** The first member at each offset. */
    const at = new Map<number, number>();
    const twins: [Load, number][] = [];
    let start = loc.offset;
    let end = loc.offset;
    let size = 0;
    let seen = 0;
    for (const l of this.#following(e, i, k)) {
      if (++seen > SCAN) break;
      const m = l.loc!;
      // `first` always (even larger than a range); then what fits.
      if (l !== first) {
        if (l.bytes || !l.loc || m.packID !== loc.packID) continue;
        if (Math.max(end, m.offset + m.length) - Math.min(start, m.offset) > this.#rangeBytes) continue;
        if (this.#held + size + l.size > this.#maxBytes) break;
      }
      const twin = at.get(m.offset);
      if (twin !== undefined) twins.push([l, twin]);
      else {
        at.set(m.offset, members.length);
        members.push(l);
        start = Math.min(start, m.offset);
        end = Math.max(end, m.offset + m.length);
      }
      size += l.size;
    }
    return { packID: loc.packID, members, twins, start, end };
  }

  /**
   * Starts one range read at `e.loads[i]`, taking along the blobs read ahead that lie in the
   * same pack near it: a backup that saved files side by side stored their blobs interleaved,
   * so the next files' blobs are near, if not adjacent.
   */
  #startRange(e: Entry<T>, i: number, k: number): void {
    const { packID, members, twins, start, end } = this.#members(e, i, k);
    const read = this.#readRange(
      packID,
      start,
      end,
      members.map((l) => l.loc!),
    );
    for (const [n, l] of members.entries()) this.#begin(l, () => read.then((plains) => plains[n]!));
    // A copy each: the consumer may hand a buffer on (transfer it) when it is done with it.
    for (const [l, n] of twins) this.#begin(l, () => read.then((plains) => plains[n]!).then((p) => p.slice()));
    // A read in flight counts until its bytes are in (what they hold counts in `held` until
    // handed over): counted until its last blob was handed over, eight ranges spanning the
    // next thousands of small files held the count while the files between, stored in other
    // packs, were read one blob at a time as their turn came.
    this.#ranges++;
    const readDone = () => {
      this.#ranges--;
      this.#fill();
    };
    read.then(readDone, readDone);
  }

  /** A load leaves the queue and counts as held; a failed range is read again blob by blob (every copy). */
  #begin(l: Load, plain: () => Promise<Uint8Array>): void {
    this.#queued -= l.size;
    this.#queuedLoads--;
    l.counted = true;
    this.#held += l.size;
    l.bytes = plain().catch((err) =>
      err instanceof CairnError && err.code === 'ABORTED' ? Promise.reject(err) : this.repo.loadBlob('data', l.id, this.opts.signal),
    );
    l.bytes.catch(() => {}); // observed when its turn comes
  }

  /** Reads [start, end) of a pack and decodes the blobs at `locs`; a failed blob rejects alone. */
  async #readRange(packID: string, start: number, end: number, locs: BlobLocation[]): Promise<Promise<Uint8Array>[]> {
    const { signal, decodePack, crc } = this.opts;
    let bytes = await this.repo.backend.load({ type: 'data', name: packID }, { offset: start, length: end - start, signal });
    if (bytes.length !== end - start)
      throw new CairnError('BAD_PACK', `pack ${packID.slice(0, 8)} is shorter than its index says`, { detail: { pack: packID } });
    const rel = locs.map((l) => ({ ...l, offset: l.offset - start }));
    if (decodePack && end - start >= DECODE_ELSEWHERE) {
      const r = await decodePack(this.repo.key, bytes, rel, signal, { crc, own: true });
      bytes = r.bytes;
      return r.results.map((x) => {
        if (!('plain' in x)) return Promise.reject(x.error);
        if (x.crc !== undefined) crcs.set(x.plain, x.crc);
        return Promise.resolve(x.plain);
      });
    }
    return rel.map((l) => decodeBlob(this.repo.key, bytes.subarray(l.offset, l.offset + l.length), l));
  }

  /** Starts the loads of `w` (at `k` in the window, -1 for `current`) the budget allows; false once it is spent. */
  #fillEntry(w: Entry<T>, k: number): boolean {
    for (; w.next < w.loads.length; w.next++) {
      const l = w.loads[w.next]!;
      if (l.bytes) continue; // in a range already, or failed at lookup
      if (this.#ranges >= this.#maxRanges || (this.#held > 0 && this.#held + Math.max(l.size, this.#roomToStart) > this.#maxBytes)) return false;
      // Read ahead only once enough is waiting to make a range of it (or nothing more comes):
      // the window grows a file at a time, so the load at its end has nothing after it yet.
      if (k >= 0 && !this.#done && this.#queued < this.#roomToStart && this.#queuedLoads < SCAN) return false;
      this.#startRange(w, w.next, k);
    }
    return true;
  }

  /** Starts what the budget allows, in order. */
  #fill(): void {
    if (this.#closed) return;
    if (this.#current && !this.#fillEntry(this.#current, -1)) return;
    for (let k = this.#started; k < this.#window.length; k++) {
      if (!this.#fillEntry(this.#window[k]!, k)) return;
      if (k === this.#started) this.#started++;
    }
  }

  /**
   * Reads items ahead as far as the byte budget reaches, then starts ranges: all at once, so a
   * range can take along the blobs of the files after its first.
   */
  async #pull(): Promise<void> {
    while (!this.#done && (this.#window.length === 0 || (this.#held + this.#queued < this.#maxBytes && this.#window.length < 4096))) {
      const r = await this.it.next();
      if (r.done) {
        this.#done = true;
        break;
      }
      const loads = this.#loadsOf(r.value.node);
      for (const l of loads) {
        if (l.bytes) continue;
        this.#queued += l.size;
        this.#queuedLoads++;
      }
      this.#window.push({ item: r.value, loads, next: 0 });
    }
    this.#fill();
  }

  /** Takes one load off the budget as it is handed over (or dropped). */
  #settle(l: Load): void {
    if (!l.counted) return;
    l.counted = false;
    this.#held -= l.size;
  }
}

/** One file's verified bytes, blob by blob, read the same way (a single-file download). */
export async function* fileContent(repo: Repository, node: Node, opts: LookaheadOptions = {}): AsyncGenerator<Uint8Array> {
  async function* one() {
    yield { node };
  }
  for await (const { content } of lookahead(repo, one(), opts)) yield* content;
}
