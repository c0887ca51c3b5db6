// A streaming tar writer producing what Go's archive/tar writes for restic's `dump` (headers
// with an unspecified format): USTAR when every field fits (mtime rounded to the second,
// access/change times dropped), else PAX — an `x` entry named `dir/PaxHeaders.0/base` with
// sorted records for the fields that do not fit (non-ASCII or long names, large ids/sizes,
// negative times) and for extended attributes — followed by the entry's own header with the
// ASCII part of each field. Data is padded to 512 bytes; the archive ends in two zero blocks.
// Entry names are checked like the ZIP writer's (./archive-names.ts).

import { ArchiveNames } from './archive-names';
import { compareBytes } from '../data/utf8';

const BLOCK = 512;
const NAME = 100;
const PREFIX = 155;
const encoder = new TextEncoder();

export interface TarEntry {
  /** Slash-separated, relative; a directory's without its trailing slash. */
  name: string;
  type: 'file' | 'dir' | 'symlink';
  /** Permission bits with setuid/setgid/sticky as tar's 04000/02000/01000. */
  mode: number;
  uid: number;
  gid: number;
  uname?: string;
  gname?: string;
  /** Modification time in nanoseconds since the epoch. */
  mtimeNs: bigint;
  /** The size field: a file's byte count (other types carry what the node says). */
  size: number;
  linkname?: string;
  /** Extra PAX records (SCHILY.xattr.*), values as bytes. */
  pax?: Map<string, Uint8Array>;
}

export type TarSink = (chunk: Uint8Array) => void | Promise<void>;

const isASCII = (s: string) => /^[\x01-\x7f]*$/.test(s);
const toASCII = (s: string) => s.replace(/[^\x01-\x7f]/gu, '');
const byteLength = (s: string) => encoder.encode(s).length;
const fitsOctal = (width: number, x: number | bigint) => BigInt(x) >= 0n && BigInt(x) < 8n ** BigInt(width - 1);

/** Go splitUSTARPath: a name over 100 bytes split at a slash into prefix (≤155) and name (≤100). */
function splitUSTAR(name: string): [string, string] | undefined {
  let length = name.length;
  if (length <= NAME || !isASCII(name)) return undefined;
  if (length > PREFIX + 1) length = PREFIX + 1;
  else if (name[length - 1] === '/') length--;
  const i = name.slice(0, length).lastIndexOf('/');
  const nlen = name.length - i - 1;
  if (i <= 0 || nlen > NAME || nlen === 0 || i > PREFIX) return undefined;
  return [name.slice(0, i), name.slice(i + 1)];
}

class Block {
  readonly b = new Uint8Array(BLOCK);

  str(at: number, width: number, s: string): void {
    const bytes = encoder.encode(s);
    this.b.set(bytes.subarray(0, width), at);
    // Go formatString: a long value keeps no trailing slash in the truncated field.
    if (bytes.length > width && this.b[at + width - 1] === 0x2f) {
      let n = width;
      while (n > 0 && this.b[at + n - 1] === 0x2f) n--;
      this.b[at + n] = 0;
    }
  }

  octal(at: number, width: number, x: number | bigint): void {
    const v = fitsOctal(width, x) ? BigInt(x) : 0n;
    this.str(at, width, v.toString(8).padStart(width - 1, '0'));
  }

  /** Magic, version and checksum (6 octal digits, NUL, space) as Go's setFormat writes them. */
  seal(): Uint8Array {
    this.str(257, 6, 'ustar\0');
    this.str(263, 2, '00');
    this.b.fill(0x20, 148, 156);
    let sum = 0;
    for (const x of this.b) sum += x;
    this.str(148, 6, sum.toString(8).padStart(6, '0'));
    this.b[154] = 0;
    this.b[155] = 0x20;
    return this.b;
  }
}

function paxRecord(key: string, value: Uint8Array): Uint8Array {
  const rest = encoder.encode(` ${key}=`);
  let size = rest.length + value.length + 1;
  size += String(size).length;
  if (String(size).length + rest.length + value.length + 1 !== size) size = String(size).length + rest.length + value.length + 1;
  const out = new Uint8Array(size);
  const head = encoder.encode(String(size));
  out.set(head);
  out.set(rest, head.length);
  out.set(value, head.length + rest.length);
  out[size - 1] = 0x0a;
  return out;
}

/** Go path.Join(path.Split(name) dir, "PaxHeaders.0", base). */
function paxName(name: string): string {
  const slash = name.lastIndexOf('/');
  const dir = name.slice(0, slash + 1);
  const base = name.slice(slash + 1);
  const joined = [dir.replace(/\/+$/, ''), 'PaxHeaders.0', base].filter(Boolean).join('/');
  return joined;
}

export class TarWriter {
  readonly #sink: TarSink;
  readonly #names = new ArchiveNames();
  #finished = false;

  constructor(sink: TarSink) {
    this.#sink = sink;
  }

  /** Writes a directory or symlink entry, or a file's header followed by its data (padded or cut to `size`). */
  async add(e: TarEntry, data?: AsyncIterable<Uint8Array>): Promise<void> {
    if (this.#finished) throw new Error('tar: finished');
    this.#names.claim(e.name, 'tar', e.type === 'symlink');
    const name = e.type === 'dir' ? e.name + '/' : e.name;
    const sec = roundedSeconds(e.mtimeNs);
    const pax = this.#paxRecords(e, name, sec);
    const [prefix, short] = (pax.size === 0 && splitUSTAR(name)) || ['', name];
    if (pax.size > 0) await this.#paxEntry(name, pax);
    const h = new Block();
    const str = pax.size > 0 ? (at: number, w: number, s: string) => h.str(at, w, toASCII(s)) : h.str.bind(h);
    h.b[156] = e.type === 'dir' ? 0x35 : e.type === 'symlink' ? 0x32 : 0x30;
    str(0, NAME, short);
    str(157, NAME, e.linkname ?? '');
    h.octal(100, 8, e.mode);
    h.octal(108, 8, e.uid);
    h.octal(116, 8, e.gid);
    h.octal(124, 12, e.size);
    h.octal(136, 12, sec);
    str(265, 32, e.uname ?? '');
    str(297, 32, e.gname ?? '');
    h.octal(329, 8, 0);
    h.octal(337, 8, 0);
    h.str(345, PREFIX, prefix);
    await this.#sink(h.seal());
    if (e.type === 'file') await this.#data(e.size, data ?? []);
  }

  /**
   * The PAX records Go's allowedFormats collects, or none when the entry fits USTAR (a long
   * ASCII path that splits into prefix and name still does).
   */
  #paxRecords(e: TarEntry, name: string, sec: bigint): Map<string, Uint8Array> {
    const pax = new Map<string, Uint8Array>();
    let needed = false;
    const text = (key: string, s: string, width: number, splittable = false) => {
      if (isASCII(s) && byteLength(s) <= width) return;
      pax.set(key, encoder.encode(s));
      if (!splittable || !splitUSTAR(s)) needed = true;
    };
    const num = (key: string, x: number | bigint, width: number) => {
      if (fitsOctal(width, x)) return;
      pax.set(key, encoder.encode(String(x)));
      needed = true;
    };
    text('path', name, NAME, true);
    text('linkpath', e.linkname ?? '', NAME);
    text('uname', e.uname ?? '', 32);
    text('gname', e.gname ?? '', 32);
    num('uid', e.uid, 8);
    num('gid', e.gid, 8);
    num('size', e.size, 12);
    num('mtime', sec, 12);
    for (const [k, v] of e.pax ?? []) {
      if (!pax.has(k)) pax.set(k, v);
      needed = true;
    }
    return needed ? pax : new Map();
  }

  async #paxEntry(name: string, pax: Map<string, Uint8Array>): Promise<void> {
    const keys = [...pax.keys()].sort((a, b) => compareBytes(encoder.encode(a), encoder.encode(b)));
    const parts = keys.map((k) => paxRecord(k, pax.get(k)!));
    const data = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      data.set(p, at);
      at += p.length;
    }
    const h = new Block();
    h.b[156] = 0x78; // 'x'
    h.str(0, NAME, toASCII(paxName(name)).slice(0, NAME).replace(/\/+$/, ''));
    h.octal(100, 8, 0);
    h.octal(108, 8, 0);
    h.octal(116, 8, 0);
    h.octal(124, 12, data.length);
    h.octal(136, 12, 0);
    await this.#sink(h.seal());
    await this.#data(data.length, [data]);
  }

  /** Exactly `size` bytes of `data` (zeros for what is missing), then padding to a block. */
  async #data(size: number, data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    let written = 0;
    let failure: { e: unknown } | undefined;
    try {
      for await (const chunk of data) {
        const take = chunk.subarray(0, Math.max(0, size - written));
        if (take.length) await this.#sink(take);
        written += take.length;
      }
    } catch (e) {
      failure = { e };
    }
    const pad = size - written + ((BLOCK - (size % BLOCK)) % BLOCK);
    for (let left = pad; left > 0; left -= 1 << 16) await this.#sink(new Uint8Array(Math.min(left, 1 << 16)));
    if (failure) throw failure.e;
  }

  /** The two zero blocks that end the archive. */
  async finish(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    await this.#sink(new Uint8Array(2 * BLOCK));
  }
}

/** Go's Time.Round(time.Second): halves round up. */
function roundedSeconds(ns: bigint): bigint {
  const s = ns / 1_000_000_000n - (ns % 1_000_000_000n < 0n ? 1n : 0n);
  const frac = ns - s * 1_000_000_000n;
  return frac >= 500_000_000n ? s + 1n : s;
}
