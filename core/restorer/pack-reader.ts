// Reads the blobs a restore needs from one pack (restic's filerestorer.go downloadPack and
// repository.go streamPack): one ranged read covering them all, or, with readGroups, one per
// decode group; each blob decoded (verified against its SHA-256) here or by a PackDecoder on
// other threads, and handed on with every file position that needs it. Pack buffers are reused.
//
// Damage costs only the blobs it touches: a pack shorter than its index says still yields every
// blob before the cut; a blob that fails to decode fails alone; a failed blob is tried again
// from another copy when the index knows one.

import { CairnError } from '../errors';
import { macrotask } from '../concurrency/concurrency';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { decodeBlob } from '../repository/blob-codec';
import type { BlobLocation } from '../index/master-index';
import { PACK_BUFFER_SIZE } from '../pack/packer';
import { DECODE_GROUP_BYTES, decodeGroups, decodeInPlace, intact, overlapping, rangeOf } from './pack-groups';
import type { Got } from './file-writers';
import type { PackBlob, Use } from './restore-plan';

/**
 * Decodes `blobs` (offsets relative to `bytes`) of one pack range, in place (with `own`, each
 * into an ArrayBuffer of its own; with `together` too, all into one new ArrayBuffer). `bytes`
 * may be handed to another thread and come back as the returned `bytes`; each result is the
 * plain blob (verified; with `crc`, its CRC-32 too) or the error for that blob alone.
 */
export type PackDecoder = (
  key: Repository['key'],
  bytes: Uint8Array,
  blobs: BlobLocation[],
  signal?: AbortSignal,
  opts?: { crc?: boolean; own?: boolean; together?: boolean },
) => Promise<{ bytes: Uint8Array; results: ({ plain: Uint8Array; crc?: number } | { error: unknown })[] }>;

/** Hands one decoded blob (or its failure) to one file position; its write goes into `writes`. */
export type Deliver = (use: Use, got: Got, writes: Promise<void>[]) => Promise<void>;

export interface PackReaderOptions {
  signal?: AbortSignal;
  /** Packs read at once (the spare buffers kept). */
  concurrency: number;
  /** Read a pack decoded in groups one group's range at a time (see RestoreOptions). */
  readGroups?: boolean;
  decodePack?: PackDecoder;
  /** Called after each blob is handed on. */
  tick?: () => void;
}

/** Smaller ranges are decoded here: a trip to another thread would cost about as much. */
const DECODE_ELSEWHERE = 1 << 20;

/**
 * What a buffer for one group's ciphertext (readGroups) is made at least: a group's
 * plaintext is at most DECODE_GROUP_BYTES (or one larger blob), its ciphertext that plus
 * 32 bytes a blob, or less where compressed.
 */
const GROUP_BUFFER_SIZE = DECODE_GROUP_BYTES + (1 << 20);

/**
 * File positions a blob is handed to between two turns of the event loop at most. Writes to a local disk finish
 * without one, and the next decoded group is waiting by the time a group is written, so
 * without these turns a restore of many small files never gave its thread's timers and signal
 * handlers (Ctrl-C) a turn until it was done.
 */
const HANDED_PER_TURN = 4096;

const isAbort = (e: unknown) => e instanceof CairnError && e.code === 'ABORTED';
const nextTurn = () => new Promise<void>((resolve) => macrotask(resolve));
const byOffset = (a: PackBlob, b: PackBlob) => a.loc.offset - b.loc.offset;

function truncated(loc: BlobLocation, size: number): CairnError {
  return new CairnError(
    'BAD_PACK',
    `pack ${loc.packID.slice(0, 8)} ends at byte ${size}, before the end of data blob ${loc.id.slice(0, 8)} (bytes ${loc.offset}-${loc.offset + loc.length}) its index lists`,
    { detail: { pack: loc.packID, blob: loc.id } },
  );
}

type Decoded = Got[];

export class PackReader {
  /** Pack buffers are reused (fresh pages cost more than the copy into them on some VMs): at most one spare per pack read at once. */
  readonly #packBuffers: Uint8Array[] = [];
  /** With readGroups, the buffers each group is read into: at most one spare per pack read at once. */
  readonly #groupBuffers: Uint8Array[] = [];
  /** File positions handed a blob since the event loop last had a turn. */
  #handedThisTurn = 0;

  constructor(
    private readonly repo: Repository,
    private readonly opts: PackReaderOptions,
  ) {}

  /** Reads `blobs` of pack `packID` and hands each to `deliver`. */
  async read(packID: ID, blobs: Iterable<PackBlob>, deliver: Deliver): Promise<void> {
    const list = [...blobs].sort(byOffset);
    const { start, end } = rangeOf(list);
    const elsewhere = this.opts.decodePack !== undefined && end - start >= DECODE_ELSEWHERE;
    const inPlace = !overlapping(list) && decodeInPlace(list);
    const writes: Promise<void>[] = [];
    if (this.opts.readGroups && elsewhere && !inPlace) {
      // Each group read, decoded (into a buffer of its own) and its buffer free again before
      // the next is read; the next group is read and decoded while this one is written.
      // (Cut by bytes alone: each group is a request of its own here, and a request costs a
      // round trip where tiny blobs cost only objects.)
      const groups = decodeGroups(list, Infinity);
      return this.#pipeline(groups, (k) => this.#readGroup(packID, groups[k]!), deliver, writes);
    }
    let held: Uint8Array | undefined;
    let into = this.#packBuffers.pop();
    if (into && into.length < end - start) into = undefined;
    try {
      held = await this.#readRange(packID, start, end - start, into ?? new Uint8Array(Math.max(end - start, PACK_BUFFER_SIZE)));
    } catch (e) {
      if (isAbort(e)) throw e;
      for (const b of list) await this.#hand(b, { error: e }, deliver, writes);
    }
    if (held && elsewhere) held = await this.#decodeElsewhere(held, start, list, inPlace, deliver, writes);
    else if (held) await this.#decodeHere(held, start, list, deliver, writes);
    if (held) {
      const buffer = held;
      void Promise.all(writes).then(() => this.#reuse(buffer));
    }
  }

  /**
   * Decoded in groups of a few MiB of plaintext (or DECODE_GROUP_BLOBS blobs), the next while
   * this one is written: a pack of small blobs holds more plaintext than its own 16 MiB, and
   * writing it blob by blob takes long. Each group crosses to a decoder thread as a copy of its
   * own range and comes back in a buffer of its own, so the pack's buffer takes the next pack as
   * soon as the last group is copied, and what crosses between threads is the group's bytes,
   * not the pack's: every buffer that comes back counts as new external memory until a full
   * collection, and a pack's 16 MiB once a group made V8 mark the whole restore plan every
   * few seconds (bench/README.md, "Restore's memory at 1 M tiny files"). A pack mostly of big stored
   * blobs, where the copy costs more than the wait, is decoded in place, in one request, and
   * its buffer waits for the writes. Returns the buffer still held.
   */
  async #decodeElsewhere(bytes: Uint8Array, start: number, list: PackBlob[], inPlace: boolean, deliver: Deliver, writes: Promise<void>[]) {
    const got = bytes.length; // (bytes is transferred to a decoder thread below when in place)
    const whole = list.filter((b) => intact(b, start, got));
    for (const b of list) if (!intact(b, start, got)) await this.#hand(b, { error: truncated(b.loc, start + got) }, deliver, writes);
    if (whole.length === 0) return bytes;
    if (inPlace) {
      const r = await this.opts.decodePack!(this.repo.key, bytes, relative(whole, start), this.opts.signal);
      await this.#pipeline([whole], async () => r.results, deliver, writes);
      return r.bytes;
    }
    const groups = decodeGroups(whole);
    let held: Uint8Array | undefined = bytes;
    const decodeGroup = async (k: number): Promise<Decoded> => {
      const g = groups[k]!;
      const range = rangeOf(g);
      const part = held!.slice(range.start - start, range.end - start);
      if (k === groups.length - 1) {
        this.#reuse(held!);
        held = undefined;
      }
      const r = await this.opts.decodePack!(this.repo.key, part, relative(g, range.start), this.opts.signal, { own: true, together: true });
      return r.results;
    };
    await this.#pipeline(groups, decodeGroup, deliver, writes);
    return held;
  }

  /** Decodes blob by blob here, in place unless two blobs share bytes. */
  async #decodeHere(bytes: Uint8Array, start: number, list: PackBlob[], deliver: Deliver, writes: Promise<void>[]): Promise<void> {
    const inPlace = !overlapping(list);
    for (const b of list) {
      const at = b.loc.offset - start;
      let got: Got;
      if (!intact(b, start, bytes.length)) got = { error: truncated(b.loc, start + bytes.length) };
      else {
        try {
          got = { plain: await decodeBlob(this.repo.key, bytes.subarray(at, at + b.loc.length), b.loc, inPlace) };
        } catch (e) {
          got = { error: e };
        }
      }
      await this.#hand(b, got, deliver, writes);
      this.opts.tick?.();
    }
  }

  /** Reads and decodes one group into a buffer of its own (readGroups). */
  async #readGroup(packID: ID, g: PackBlob[]): Promise<Decoded> {
    const { start, end } = rangeOf(g);
    let into = this.#groupBuffers.pop();
    if (into && into.length < end - start) into = undefined;
    let bytes: Uint8Array;
    try {
      bytes = await this.#readRange(packID, start, end - start, into ?? new Uint8Array(Math.max(end - start, GROUP_BUFFER_SIZE)));
    } catch (e) {
      if (isAbort(e)) throw e;
      if (into) this.#groupBuffers.push(into);
      return g.map(() => ({ error: e }));
    }
    const got = bytes.length; // (bytes is transferred to a decoder thread below)
    const whole = g.filter((b) => intact(b, start, got));
    const d = whole.length
      ? await this.opts.decodePack!(this.repo.key, bytes, relative(whole, start), this.opts.signal, { own: true, together: true })
      : { bytes, results: [] };
    // (A decoder that ignored `own` would leave blobs in it: then the buffer is dropped.)
    const back = d.bytes;
    if (back.byteOffset === 0 && this.#groupBuffers.length < this.opts.concurrency && !d.results.some((x) => 'plain' in x && x.plain.buffer === back.buffer))
      this.#groupBuffers.push(new Uint8Array(back.buffer));
    let k = 0;
    return g.map((b) => (intact(b, start, got) ? d.results[k++]! : { error: truncated(b.loc, start + got) }));
  }

  /** Decodes `groups` in order and hands on each one's blobs (and drops them), the next group decoding while this one is written. */
  async #pipeline(groups: PackBlob[][], decode: (k: number) => Promise<Decoded>, deliver: Deliver, writes: Promise<void>[]): Promise<void> {
    let next = decode(0);
    for (let k = 0; k < groups.length; k++) {
      const decoded = await next;
      if (k + 1 < groups.length) {
        next = decode(k + 1);
        next.catch(() => {}); // awaited next round, unless this one is aborted
      }
      for (const [i, b] of groups[k]!.entries()) {
        await this.#hand(b, decoded[i]!, deliver, writes);
        decoded[i] = { error: undefined }; // written or queued: the group need not hold it
        this.opts.tick?.();
      }
    }
  }

  /** Hands a blob to each of its uses, after trying another copy if it failed and there is one. */
  async #hand(b: PackBlob, got: Got, deliver: Deliver, writes: Promise<void>[]): Promise<void> {
    if ('error' in got && !isAbort(got.error) && this.repo.index.lookupAll('data', b.loc.id).length > 1) {
      try {
        got = { plain: await this.repo.loadBlob('data', b.loc.id, this.opts.signal) };
      } catch (e) {
        if (isAbort(e)) throw e;
      }
    }
    await this.#deliverOne(b, got, deliver, writes);
    for (const use of b.more ?? []) await this.#deliverOne(use, got, deliver, writes);
  }

  /** Hands a blob to one of its uses; every HANDED_PER_TURN of them the event loop gets a turn. */
  async #deliverOne(use: Use, got: Got, deliver: Deliver, writes: Promise<void>[]): Promise<void> {
    await deliver(use, got, writes);
    if (++this.#handedThisTurn < HANDED_PER_TURN) return;
    this.#handedThisTurn = 0;
    await nextTurn();
  }

  /**
   * Reads [start, start + length) of a pack into `into`. A pack shorter than that yields what
   * it has (callers fail only the blobs past its end); any other failure rejects.
   */
  async #readRange(packID: ID, start: number, length: number, into: Uint8Array): Promise<Uint8Array> {
    const h = { type: 'data' as const, name: packID };
    const signal = this.opts.signal;
    try {
      return await this.repo.backend.load(h, { offset: start, length, signal, into });
    } catch (e) {
      const detail = e instanceof CairnError ? (e.detail as { reason?: string; size?: number } | undefined) : undefined;
      if (detail?.reason !== 'out-of-range' || typeof detail.size !== 'number') throw e;
      if (detail.size <= start) return into.subarray(0, 0);
      return this.repo.backend.load(h, { offset: start, length: detail.size - start, signal, into });
    }
  }

  #reuse(b: Uint8Array): void {
    if (b.byteOffset === 0 && b.buffer.byteLength >= PACK_BUFFER_SIZE && this.#packBuffers.length < this.opts.concurrency)
      this.#packBuffers.push(new Uint8Array(b.buffer));
  }
}

/** The blobs' locations with offsets relative to `start`. */
function relative(list: PackBlob[], start: number): BlobLocation[] {
  return list.map((b) => ({ ...b.loc, offset: b.loc.offset - start }));
}
