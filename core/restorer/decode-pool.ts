// Restore's pack decoding on other threads, whatever they are (Node worker threads in
// cli/pool/, Web Workers in workers/pool/): a pack range's buffer is transferred to the least
// busy thread, decrypted and verified there (in place, or with `own` each blob into a buffer
// of its own, for downloads that transfer them on), and transferred back, so decryption,
// MACs, hashes and decompression use every core while the restoring thread writes files.
// Check's `verifyPack` does the same work and sends back only each blob's verdict.
// Threads start on first use. The thread side is `decodeRequest`.

import { Key } from '../crypto/keys';
import { deserializeError, serializeError, throwIfAborted } from '../errors';
import { PACK_BUFFER_SIZE } from '../pack/packer';
import { decodeBlob, plainLength, scratchFor } from '../repository/blob-codec';
import { crc32 } from './crc32';
import { smallGarbageMade } from '../memory/garbage';
import type { PackDecoder } from './restorer';
import type { DecodedRef, DecodeInit, FromDecoder, ToDecoder } from './decode-messages';
import type { BlobLocation } from '../index/master-index';

export type { DecodeInit, FromDecoder, ToDecoder };

/** One decode thread as the pool sees it. */
export interface DecodeThread {
  post(m: ToDecoder, transfer: ArrayBuffer[]): void;
  terminate(): unknown;
}

/** Starts a thread with `init`; it reports its messages and its death through `events`. */
export type SpawnDecoder = (init: DecodeInit, events: { message(m: FromDecoder): void; failed(e: unknown): void }) => DecodeThread;

/**
 * Verifies `blobs` (offsets relative to `bytes`) of one pack range as PackDecoder decodes them,
 * but hands back no plain bytes: each result is undefined (verified) or that blob's error.
 */
export type PackVerifier = (
  key: Key,
  bytes: Uint8Array,
  blobs: BlobLocation[],
  signal?: AbortSignal,
) => Promise<{ bytes: Uint8Array; errors: (unknown | undefined)[] }>;

export interface DecodePool {
  decodePack: PackDecoder;
  verifyPack: PackVerifier;
  close(): Promise<void>;
}

type Flags = Pick<ToDecoder, 'crc' | 'own' | 'together' | 'verify'>;

type Decoded = Extract<FromDecoder, { type: 'decoded' }>;

interface Thread {
  thread: DecodeThread;
  ready: Promise<void>;
  busy: number;
  waiting: Map<number, { done: (m: Decoded) => void; fail: (e: unknown) => void }>;
}

/** Starts `threadCount` decode threads with `init`; each settles its waiting requests from its messages. */
function startThreads(spawn: SpawnDecoder, threadCount: number, init: DecodeInit): Thread[] {
  return Array.from({ length: Math.max(1, threadCount) }, () => {
    const waiting: Thread['waiting'] = new Map();
    let settle!: { resolve: () => void; reject: (e: unknown) => void };
    const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    ready.catch(() => {});
    const thread = spawn(init, {
      message(m) {
        if (m.type === 'ready') settle.resolve();
        else if (m.type === 'initError') settle.reject(deserializeError(m.error));
        else {
          const w = waiting.get(m.id);
          waiting.delete(m.id);
          w?.done(m);
        }
      },
      failed(e) {
        settle.reject(e);
        for (const w of waiting.values()) w.fail(e);
        waiting.clear();
      },
    });
    return { thread, ready, busy: 0, waiting };
  });
}

export function decodePool(spawn: SpawnDecoder, threadCount: number): DecodePool {
  let threads: Thread[] | undefined;
  let nextId = 0;

  /** Sends one range to the least busy thread; its reply, and the range's bytes as they came back. */
  async function request(key: Key, bytes: Uint8Array, blobs: BlobLocation[], signal: AbortSignal | undefined, flags: Flags) {
    throwIfAborted(signal);
    threads ??= startThreads(spawn, threadCount, { key: { encrypt: key.encrypt, macK: key.macK, macR: key.macR } });
    let t = threads[0]!;
    for (const x of threads) if (x.busy < t.busy) t = x;
    await t.ready;
    // Only a buffer that is wholly this range's (or one of restore's own pack buffers) is
    // transferred; anything else (a slice of a shared allocation) is copied first.
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const mine = whole || bytes.buffer.byteLength >= PACK_BUFFER_SIZE;
    const src = mine ? bytes : bytes.slice();
    const { byteOffset, byteLength } = src; // a transferred view reads 0 for both
    const id = nextId++;
    t.busy++;
    try {
      const m = await new Promise<Decoded>((done, fail) => {
        t.waiting.set(id, { done, fail });
        t.thread.post({ id, buffer: src.buffer as ArrayBuffer, offset: byteOffset, length: byteLength, blobs, ...flags }, [src.buffer as ArrayBuffer]);
      });
      return { m, back: new Uint8Array(m.buffer, byteOffset, byteLength) };
    } finally {
      t.busy--;
    }
  }

  return {
    async decodePack(key, bytes, blobs, signal, opts) {
      const { m, back } = await request(key, bytes, blobs, signal, { crc: opts?.crc, own: opts?.own, together: opts?.together });
      const results = m.results.map((r) => {
        if ('error' in r) return { error: deserializeError(r.error) };
        if ('extra' in r) return { plain: r.at === undefined ? m.extras[r.extra]! : new Uint8Array(m.extras[r.extra]!.buffer, r.at, r.length), crc: r.crc };
        if ('verified' in r) throw new Error('decode thread: a verify-only result for a decode request');
        return { plain: new Uint8Array(m.buffer, r.at, r.length), crc: r.crc };
      });
      return { bytes: back, results };
    },
    async verifyPack(key, bytes, blobs, signal) {
      const { m, back } = await request(key, bytes, blobs, signal, { verify: true });
      return { bytes: back, errors: m.results.map((r) => ('error' in r ? deserializeError(r.error) : undefined)) };
    },
    async close() {
      if (threads) await Promise.all(threads.map((t) => t.thread.terminate()));
      threads = undefined;
    },
  };
}

/** The thread side: the key from `init`, once the thread's primitives are set up. */
export function decoderKey(init: DecodeInit): Key {
  return new Key(init.key.encrypt, init.key.macK, init.key.macR);
}

/** Blobs below this are not counted as garbage where they are decrypted (see garbageMade). */
const SMALL_BLOB = 32 << 10;
/** What one blob's entry in a request and its result weigh as garbage, roughly (two hex IDs, objects). */
const BLOB_MESSAGE = 512;

/**
 * Small blobs' garbage (the cipher's output, zstd's copy out unless verifying, the message's
 * objects) is below what the primitives count, yet a request of a thousand such blobs leaves
 * tens of MiB.
 */
function smallBlobsGarbage(m: ToDecoder): number {
  let small = 0;
  for (const b of m.blobs) if (b.length < SMALL_BLOB) small += (m.verify ? 1 : 2) * b.length + BLOB_MESSAGE;
  return small;
}

/** Decodes one request (in place unless `own`; with `verify`, nothing plain kept); the reply and what to transfer with it. */
export async function decodeRequest(key: Key, m: ToDecoder): Promise<{ reply: FromDecoder; transfer: ArrayBuffer[] }> {
  const bytes = new Uint8Array(m.buffer, m.offset, m.length);
  const results: DecodedRef[] = [];
  const extras: Uint8Array[] = [];
  // `together`: one buffer for every blob's plaintext, sized from the index's lengths (which
  // decodeBlob holds each blob to: zstd to the exact size, stored ones by their length).
  const out = m.own && m.together ? new Uint8Array(m.blobs.reduce((n, b) => n + plainLength(b.length, b.uncompressedLength), 0)) : undefined;
  if (out) extras.push(out);
  // `verify`: each compressed blob is decompressed into one reused buffer, hashed and dropped.
  const scratch = m.verify ? scratchFor(m.blobs) : undefined;
  let at = 0;
  for (const b of m.blobs) {
    try {
      let plain = await decodeBlob(key, bytes.subarray(b.offset, b.offset + b.length), b, !m.own, scratch);
      const crc = m.crc ? crc32(plain) : undefined;
      if (m.verify) results.push({ verified: true });
      else if (out) {
        out.set(plain, at);
        results.push({ extra: 0, at, length: plain.length, crc });
        at += plain.length;
      } else if (plain.buffer === m.buffer) results.push({ at: plain.byteOffset, length: plain.length, crc });
      else {
        // Decompressed into a buffer of its own: sent along (copied if it shares one).
        if (plain.byteOffset !== 0 || plain.byteLength !== plain.buffer.byteLength) plain = plain.slice();
        results.push({ extra: extras.push(plain) - 1, crc });
      }
    } catch (e) {
      results.push({ error: serializeError(e) });
    }
  }
  smallGarbageMade(smallBlobsGarbage(m));
  return { reply: { type: 'decoded', id: m.id, buffer: m.buffer, results, extras }, transfer: [m.buffer, ...extras.map((x) => x.buffer as ArrayBuffer)] };
}
