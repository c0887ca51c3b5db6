// Restore's pack decoding on other threads, whatever they are (Node worker threads in
// cli/pool/, Web Workers in workers/pool/): a pack range's buffer is transferred to the least
// busy thread, decrypted and verified there (in place, or with `own` each blob into a buffer
// of its own, for downloads that transfer them on), and transferred back, so decryption,
// MACs, hashes and decompression use every core while the restoring thread writes files.
// Check's `verifyPack` does the same work and sends back only each blob's verdict.
// Threads start on first use. The thread side is `decodeRequest`.

import { Key } from '../crypto/keys';
import { CairnError, deserializeError, serializeError, throwIfAborted, type SerializedError } from '../errors';
import { PACK_BUFFER_SIZE } from '../pack/packer';
import { decodeBlob, plainLength, scratchFor, verifyBlob } from '../repository/blob-codec';
import { crc32 } from './crc32';
import { smallGarbageMade } from '../memory/garbage';
import type { PackDecoder } from './restorer';
import type { BlobList, DecodedRef, DecodeInit, DecodeRequest, FromDecoder, ToDecoder, VerifyRequest } from './decode-messages';
import type { PackedBlob } from '../pack/header';
import { fromHex } from '../id';

export type { DecodeInit, FromDecoder, ToDecoder };

/** One decode thread as the pool sees it. */
export interface DecodeThread {
  post(m: ToDecoder, transfer: ArrayBuffer[]): void;
  terminate(): unknown;
}

/** Starts a thread with `init`; it reports its messages and its death through `events`. */
export type SpawnDecoder = (init: DecodeInit, events: { message(m: FromDecoder): void; failed(e: unknown): void }) => DecodeThread;

/**
 * Verifies `blobs` (offsets relative to `bytes`) of one pack range as PackDecoder decodes them
 * (decrypting them in place), but hands back no plain bytes: each result is undefined
 * (verified) or that blob's error.
 */
export type PackVerifier = (
  key: Key,
  bytes: Uint8Array,
  blobs: readonly PackedBlob[],
  signal?: AbortSignal,
) => Promise<{ bytes: Uint8Array; errors: (unknown | undefined)[] }>;

export interface DecodePool {
  decodePack: PackDecoder;
  verifyPack: PackVerifier;
  close(): Promise<void>;
}

/** A request without its range (filled in by the pool). */
type Ask = Omit<DecodeRequest, 'id' | 'buffer' | 'offset' | 'length'> | Omit<VerifyRequest, 'id' | 'buffer' | 'offset' | 'length'>;

type Decoded = Extract<FromDecoder, { type: 'decoded' | 'verified' }>;

/** `blobs` as a BlobList, and the buffers to transfer with it. */
function blobList(blobs: readonly PackedBlob[]): { list: BlobList; transfer: ArrayBuffer[] } {
  const list = { ids: new Uint8Array(32 * blobs.length), types: new Uint8Array(blobs.length), fields: new Float64Array(3 * blobs.length) };
  blobs.forEach((b, i) => {
    fromHex(b.id, list.ids.subarray(32 * i, 32 * i + 32));
    list.types[i] = b.type === 'tree' ? 1 : 0;
    list.fields.set([b.offset, b.length, b.uncompressedLength], 3 * i);
  });
  return { list, transfer: [list.ids.buffer, list.types.buffer, list.fields.buffer] };
}

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
  async function request(key: Key, bytes: Uint8Array, ask: Ask, signal: AbortSignal | undefined, more: ArrayBuffer[] = []) {
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
        t.thread.post({ id, buffer: src.buffer as ArrayBuffer, offset: byteOffset, length: byteLength, ...ask } as ToDecoder, [
          src.buffer as ArrayBuffer,
          ...more,
        ]);
      });
      return { m, back: new Uint8Array(m.buffer, byteOffset, byteLength) };
    } finally {
      t.busy--;
    }
  }

  return {
    async decodePack(key, bytes, blobs, signal, opts) {
      const { m, back } = await request(key, bytes, { blobs, crc: opts?.crc, own: opts?.own, together: opts?.together }, signal);
      if (m.type !== 'decoded') throw new CairnError('INTERNAL', `decode thread: ${m.type} for a decode request`);
      const results = m.results.map((r) => {
        if ('error' in r) return { error: deserializeError(r.error) };
        if ('extra' in r) return { plain: r.at === undefined ? m.extras[r.extra]! : new Uint8Array(m.extras[r.extra]!.buffer, r.at, r.length), crc: r.crc };
        return { plain: new Uint8Array(m.buffer, r.at, r.length), crc: r.crc };
      });
      return { bytes: back, results };
    },
    async verifyPack(key, bytes, blobs, signal) {
      const { list, transfer } = blobList(blobs);
      const { m, back } = await request(key, bytes, { verify: list }, signal, transfer);
      if (m.type !== 'verified') throw new CairnError('INTERNAL', `decode thread: ${m.type} for a verify request`);
      const errors: unknown[] = new Array(blobs.length).fill(undefined);
      for (const f of m.failures) errors[f.blob] = deserializeError(f.error);
      return { bytes: back, errors };
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
 * Small blobs' garbage (the cipher's output, zstd's copy out, the message's objects) is below
 * what the primitives count, yet a request of a thousand such blobs leaves tens of MiB.
 */
function smallBlobsGarbage(m: DecodeRequest): number {
  let small = 0;
  for (const b of m.blobs) if (b.length < SMALL_BLOB) small += 2 * b.length + BLOB_MESSAGE;
  return small;
}

/** Decodes or verifies one request; the reply and what to transfer with it. */
export function decodeRequest(key: Key, m: ToDecoder): Promise<{ reply: FromDecoder; transfer: ArrayBuffer[] }> {
  return 'verify' in m ? verifyRequest(key, m) : decode(key, m);
}

/** Verifies each listed blob in place, each compressed one decompressed into one reused buffer, hashed and dropped. */
async function verifyRequest(key: Key, m: VerifyRequest): Promise<{ reply: FromDecoder; transfer: ArrayBuffer[] }> {
  const bytes = new Uint8Array(m.buffer, m.offset, m.length);
  const { ids, types, fields } = m.verify;
  const scratch = scratchFor(fields.filter((_, i) => i % 3 === 2));
  const failures: { blob: number; error: SerializedError }[] = [];
  let garbage = 0;
  for (let i = 0; i < types.length; i++) {
    const [offset, length, uncompressedLength] = [fields[3 * i]!, fields[3 * i + 1]!, fields[3 * i + 2]!];
    const ref = { type: types[i] === 1 ? ('tree' as const) : ('data' as const), id: ids.subarray(32 * i, 32 * i + 32), uncompressedLength };
    try {
      await verifyBlob(key, bytes.subarray(offset, offset + length), ref, scratch);
    } catch (e) {
      failures.push({ blob: i, error: serializeError(e) });
    }
    if (length < SMALL_BLOB) garbage += length;
  }
  // The cipher's output for small blobs is below what the primitives count (see smallBlobsGarbage).
  smallGarbageMade(garbage);
  return { reply: { type: 'verified', id: m.id, buffer: m.buffer, failures }, transfer: [m.buffer] };
}

/** Decodes one request (in place unless `own`); the reply and what to transfer with it. */
async function decode(key: Key, m: DecodeRequest): Promise<{ reply: FromDecoder; transfer: ArrayBuffer[] }> {
  const bytes = new Uint8Array(m.buffer, m.offset, m.length);
  const results: DecodedRef[] = [];
  const extras: Uint8Array[] = [];
  // `together`: one buffer for every blob's plaintext, sized from the index's lengths (which
  // decodeBlob holds each blob to: zstd to the exact size, stored ones by their length).
  const out = m.own && m.together ? new Uint8Array(m.blobs.reduce((n, b) => n + plainLength(b.length, b.uncompressedLength), 0)) : undefined;
  if (out) extras.push(out);
  let at = 0;
  for (const b of m.blobs) {
    try {
      let plain = await decodeBlob(key, bytes.subarray(b.offset, b.offset + b.length), b, !m.own);
      const crc = m.crc ? crc32(plain) : undefined;
      if (out) {
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
