// A streaming ZIP writer for downloads: entries are written as their bytes arrive and never
// held whole. Entries are "stored" (no compression: restored files are mostly already
// compressed, and the stream stays as fast as decryption). Each entry's CRC-32 goes into a
// data descriptor after its bytes (general purpose flag bit 3), so nothing is read twice.
// ZIP64 (APPNOTE 6.3.10 §4.3.9, §4.5.3, §4.3.14–15) is used per entry when its size may reach
// 4 GiB, and for the end records when offsets or counts overflow the 32-bit/16-bit fields.
// Names are UTF-8 (flag bit 11); mtimes go in DOS form and in the 0x5455 extended timestamp.

import { ArchiveNames } from './archive-names';
import { crc32, crc32Combine } from './crc32';

const U32 = 0xffffffff;
const FLAG_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;
const VERSION_MADE_BY = (3 << 8) | 45; // Unix, spec 4.5
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

export interface ZipEntryMeta {
  mtime: Date;
  /** Unix permission bits (0o644 by default for files, 0o755 for directories). */
  mode?: number;
}

export interface ZipWriterOptions {
  /** Write every entry with ZIP64 fields (tests exercise the ZIP64 path without 4 GiB of data). */
  forceZip64?: boolean;
}

export interface ZipFileResult {
  size: number;
  crc: number;
}

interface CentralEntry {
  name: Uint8Array;
  dir: boolean;
  zip64: boolean;
  crc: number;
  size: number;
  offset: number;
  dosTime: number;
  dosDate: number;
  unixTime: number | undefined;
  mode: number;
}

/** Takes a chunk, and may keep or transfer (detach) its buffer: read nothing of it afterwards. */
export type ZipSink = (chunk: Uint8Array) => void | Promise<void>;

const encoder = new TextEncoder();

export class ZipWriter {
  readonly #sink: ZipSink;
  readonly #force: boolean;
  readonly #entries: CentralEntry[] = [];
  readonly #names = new ArchiveNames();
  #offset = 0;
  #finished = false;

  constructor(sink: ZipSink, opts: ZipWriterOptions = {}) {
    this.#sink = sink;
    this.#force = opts.forceZip64 ?? false;
  }

  /** Bytes written so far. */
  get offset(): number {
    return this.#offset;
  }

  async directory(name: string, meta: ZipEntryMeta): Promise<void> {
    const e = this.#entry(name.replace(/\/*$/, '/'), true, false, meta);
    await this.#write(localHeader(e));
    await this.#write(descriptor(e));
    this.#entries.push(e);
  }

  /**
   * Adds a file. `expectedSize` (when known) decides whether the entry needs ZIP64; the bytes
   * written are whatever `data` yields. If `data` throws, the entry is closed with what was
   * written so far (the archive stays valid) and the error is rethrown.
   */
  /** `crcOf` may know a piece's CRC-32 already (computed elsewhere); it is joined, not recomputed. */
  async file(
    name: string,
    meta: ZipEntryMeta,
    expectedSize: number | undefined,
    data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    crcOf?: (chunk: Uint8Array) => number | undefined,
  ): Promise<ZipFileResult> {
    const zip64 = this.#force || expectedSize === undefined || expectedSize >= U32;
    const e = this.#entry(name, false, zip64, meta);
    await this.#write(localHeader(e));
    let failure: { e: unknown } | undefined;
    try {
      for await (const chunk of data) {
        const known = crcOf?.(chunk);
        e.crc = known === undefined ? crc32(chunk, e.crc) : crc32Combine(e.crc, known, chunk.length);
        e.size += chunk.length;
        if (!e.zip64 && e.size >= U32) throw new Error(`zip: ${name} is larger than its expected ${expectedSize} bytes`);
        await this.#write(chunk);
      }
    } catch (err) {
      failure = { e: err };
    }
    await this.#write(descriptor(e));
    this.#entries.push(e);
    if (failure) throw failure.e;
    return { size: e.size, crc: e.crc };
  }

  /** A symbolic link: Info-ZIP's convention, the target as the content of an S_IFLNK entry. */
  async symlink(name: string, meta: ZipEntryMeta, target: string): Promise<void> {
    const data = encoder.encode(target);
    const e = this.#entry(name, false, this.#force, meta, true);
    e.mode = S_IFLNK | 0o777;
    await this.#write(localHeader(e));
    e.crc = crc32(data);
    e.size = data.length;
    await this.#write(data);
    await this.#write(descriptor(e));
    this.#entries.push(e);
  }

  /** Writes the central directory and the end records. */
  async finish(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    const cdStart = this.#offset;
    for (const e of this.#entries) await this.#write(centralHeader(e));
    const cdSize = this.#offset - cdStart;
    const count = this.#entries.length;
    const needs64 = this.#force || count >= 0xffff || cdStart >= U32 || cdSize >= U32;
    if (needs64) {
      const eocd64At = this.#offset;
      const r = new Bytes(56 + 20);
      r.u32(0x06064b50).u64(44).u16(VERSION_MADE_BY).u16(45).u32(0).u32(0).u64(count).u64(count).u64(cdSize).u64(cdStart);
      r.u32(0x07064b50).u32(0).u64(eocd64At).u32(1);
      await this.#write(r.bytes);
    }
    const end = new Bytes(22);
    const c16 = needs64 ? 0xffff : count;
    end
      .u32(0x06054b50)
      .u16(0)
      .u16(0)
      .u16(c16)
      .u16(c16)
      .u32(needs64 ? U32 : cdSize)
      .u32(needs64 ? U32 : cdStart)
      .u16(0);
    await this.#write(end.bytes);
  }

  #entry(name: string, dir: boolean, zip64: boolean, meta: ZipEntryMeta, symlink = false): CentralEntry {
    if (this.#finished) throw new Error('zip: finished');
    this.#names.claim(dir ? name.slice(0, -1) : name, 'zip', symlink);
    const { time, date } = dosDateTime(meta.mtime);
    const secs = Math.floor(meta.mtime.getTime() / 1000);
    const perm = (meta.mode ?? (dir ? 0o755 : 0o644)) & 0o7777;
    return {
      name: encoder.encode(name),
      dir,
      zip64,
      crc: 0,
      size: 0,
      offset: this.#offset,
      dosTime: time,
      dosDate: date,
      unixTime: secs >= 0 && secs < 2 ** 32 ? secs : undefined,
      mode: (dir ? S_IFDIR : S_IFREG) | perm,
    };
  }

  /** Whether an entry of this name (a directory's without its slash) is in the archive. */
  has(name: string): boolean {
    return this.#names.has(name);
  }

  async #write(b: Uint8Array): Promise<void> {
    if (b.length === 0) return;
    this.#offset += b.length;
    await this.#sink(b);
  }
}

function localHeader(e: CentralEntry): Uint8Array {
  const extraLen = (e.zip64 ? 20 : 0) + (e.unixTime !== undefined ? 9 : 0);
  const b = new Bytes(30 + e.name.length + extraLen);
  b.u32(0x04034b50)
    .u16(e.zip64 ? 45 : 20)
    .u16(FLAG_DESCRIPTOR | FLAG_UTF8)
    .u16(0)
    .u16(e.dosTime)
    .u16(e.dosDate);
  b.u32(0)
    .u32(e.zip64 ? U32 : 0)
    .u32(e.zip64 ? U32 : 0)
    .u16(e.name.length)
    .u16(extraLen)
    .raw(e.name);
  if (e.zip64) b.u16(0x0001).u16(16).u64(0).u64(0);
  if (e.unixTime !== undefined) b.u16(0x5455).u16(5).u8(1).u32(e.unixTime);
  return b.bytes;
}

function descriptor(e: CentralEntry): Uint8Array {
  const b = new Bytes(e.zip64 ? 24 : 16);
  b.u32(0x08074b50).u32(e.crc);
  if (e.zip64) b.u64(e.size).u64(e.size);
  else b.u32(e.size).u32(e.size);
  return b.bytes;
}

function centralHeader(e: CentralEntry): Uint8Array {
  const bigSize = e.zip64 || e.size >= U32;
  const bigOffset = e.offset >= U32;
  const z64Len = (bigSize ? 16 : 0) + (bigOffset ? 8 : 0);
  const extraLen = (z64Len ? 4 + z64Len : 0) + (e.unixTime !== undefined ? 9 : 0);
  const b = new Bytes(46 + e.name.length + extraLen);
  b.u32(0x02014b50)
    .u16(VERSION_MADE_BY)
    .u16(e.zip64 || bigOffset ? 45 : 20)
    .u16(FLAG_DESCRIPTOR | FLAG_UTF8)
    .u16(0);
  b.u16(e.dosTime)
    .u16(e.dosDate)
    .u32(e.crc)
    .u32(bigSize ? U32 : e.size)
    .u32(bigSize ? U32 : e.size);
  b.u16(e.name.length).u16(extraLen).u16(0).u16(0).u16(0);
  b.u32(((e.mode << 16) | (e.dir ? 0x10 : 0)) >>> 0)
    .u32(bigOffset ? U32 : e.offset)
    .raw(e.name);
  if (z64Len) {
    b.u16(0x0001).u16(z64Len);
    if (bigSize) b.u64(e.size).u64(e.size);
    if (bigOffset) b.u64(e.offset);
  }
  if (e.unixTime !== undefined) b.u16(0x5455).u16(5).u8(1).u32(e.unixTime);
  return b.bytes;
}

/** MS-DOS date and time in local time, clamped to the format's 1980–2107 range. */
export function dosDateTime(d: Date): { time: number; date: number } {
  let y = d.getFullYear();
  if (Number.isNaN(y) || y < 1980) return { time: 0, date: (1 << 5) | 1 };
  if (y > 2107) y = 2107;
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((y - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/** Little-endian byte builder for the fixed-size records. */
class Bytes {
  readonly bytes: Uint8Array;
  readonly #view: DataView;
  #at = 0;

  constructor(n: number) {
    this.bytes = new Uint8Array(n);
    this.#view = new DataView(this.bytes.buffer);
  }

  u8(v: number): this {
    this.#view.setUint8(this.#at, v);
    this.#at += 1;
    return this;
  }

  u16(v: number): this {
    this.#view.setUint16(this.#at, v, true);
    this.#at += 2;
    return this;
  }

  u32(v: number): this {
    this.#view.setUint32(this.#at, v >>> 0, true);
    this.#at += 4;
    return this;
  }

  u64(v: number): this {
    this.#view.setBigUint64(this.#at, BigInt(v), true);
    this.#at += 8;
    return this;
  }

  raw(b: Uint8Array): this {
    this.bytes.set(b, this.#at);
    this.#at += b.length;
    return this;
  }
}
