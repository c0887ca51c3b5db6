// Looking for secrets where a browser keeps an origin's data: every IndexedDB database, object
// store and record, every OPFS file, Cache Storage, localStorage and sessionStorage (read from
// the page), and every file of the profile directory on disk (read from Node). A secret is
// searched for in the encodings it could have been stored in.

import type { Page } from '@playwright/test';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface Needle {
  /** What it is ("password", "master key encrypt part", …). */
  name: string;
  /** Encoded forms: encoding name → bytes to look for. */
  forms: Map<string, Uint8Array>;
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/**
 * The base64 of `bytes` as it appears inside a longer base64 text, whatever its offset: for
 * each of the three alignments, the characters that depend only on `bytes`.
 */
function base64Inner(bytes: Uint8Array, url: boolean): string[] {
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const padded = Buffer.concat([Buffer.alloc(shift), Buffer.from(bytes)]);
    let b64 = padded.toString(url ? 'base64url' : 'base64').replace(/=+$/, '');
    b64 = b64.slice(shift === 0 ? 0 : 4, b64.length - 4);
    if (b64.length >= 12) out.push(b64);
  }
  return out;
}

/** A secret held as text: its UTF-8, UTF-16LE, base64, hex and URL-encoded forms. */
export function textNeedle(name: string, secret: string): Needle {
  const forms = new Map<string, Uint8Array>([
    ['utf-8', utf8(secret)],
    ['utf-16le', new Uint8Array(Buffer.from(secret, 'utf16le'))],
    ['hex', utf8(Buffer.from(secret).toString('hex'))],
    ['url-encoded', utf8(encodeURIComponent(secret))],
  ]);
  base64Inner(utf8(secret), false).forEach((b, i) => forms.set(`base64/${i}`, utf8(b)));
  return { name, forms };
}

/** A secret held as bytes (a key): raw, hex in both cases, base64 and base64url at any alignment. */
export function bytesNeedle(name: string, secret: Uint8Array): Needle {
  const hex = Buffer.from(secret).toString('hex');
  const forms = new Map<string, Uint8Array>([
    ['raw', secret],
    ['hex', utf8(hex)],
    ['HEX', utf8(hex.toUpperCase())],
    ['hex utf-16le', new Uint8Array(Buffer.from(hex, 'utf16le'))],
  ]);
  base64Inner(secret, false).forEach((b, i) => {
    forms.set(`base64/${i}`, utf8(b));
    forms.set(`base64/${i} utf-16le`, new Uint8Array(Buffer.from(b, 'utf16le')));
  });
  base64Inner(secret, true).forEach((b, i) => forms.set(`base64url/${i}`, utf8(b)));
  return { name, forms };
}

/** Every place a needle occurs in `haystack`: "name (encoding) in where". */
export function findNeedles(needles: Needle[], where: string, haystack: Uint8Array): string[] {
  const hits: string[] = [];
  const hay = Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength);
  for (const n of needles) {
    for (const [enc, form] of n.forms)
      if (hay.includes(Buffer.from(form.buffer, form.byteOffset, form.byteLength))) hits.push(`${n.name} (${enc}) in ${where}`);
  }
  return hits;
}

/** Every file under `dir` (the profile on disk): path → bytes, unreadable ones skipped. */
export async function filesUnder(dir: string): Promise<{ path: string; bytes: Uint8Array }[]> {
  const out: { path: string; bytes: Uint8Array }[] = [];
  for (const rel of await readdir(dir, { recursive: true })) {
    try {
      out.push({ path: rel, bytes: await readFile(join(dir, rel)) });
    } catch {
      // a directory, a socket or a file gone meanwhile
    }
  }
  return out;
}

export interface OriginStorage {
  /** "db/store" → every record (key and value), serialised with bytes as base64. */
  indexedDB: Record<string, string>;
  /** OPFS path → base64 of its bytes. */
  opfs: Record<string, string>;
  /** "cache name url" → base64 of the body. */
  caches: Record<string, string>;
  localStorage: Record<string, string>;
  sessionStorage: Record<string, string>;
}

/** Reads everything the origin stores, from the page. */
export function readOriginStorage(page: Page): Promise<OriginStorage> {
  return page.evaluate(async () => {
    const b64 = (buf: ArrayBuffer | ArrayBufferView): string => {
      const u8 = buf instanceof ArrayBuffer ? new Uint8Array(buf) : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      let s = '';
      for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode(...u8.subarray(i, i + 0x8000));
      return btoa(s);
    };
    // Values as IndexedDB holds them: bytes and Blobs become {$bytes: base64}; CryptoKeys (opaque) their description.
    const plain = async (v: unknown): Promise<unknown> => {
      if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return { $bytes: b64(v as ArrayBuffer) };
      if (v instanceof Blob) return { $bytes: b64(await v.arrayBuffer()) };
      if (v instanceof CryptoKey) return { $cryptoKey: { type: v.type, extractable: v.extractable, algorithm: v.algorithm, usages: v.usages } };
      if (v instanceof Map) return { $map: await Promise.all([...v].map(async ([k, x]) => [await plain(k), await plain(x)])) };
      if (Array.isArray(v)) return Promise.all(v.map(plain));
      if (v && typeof v === 'object') return Object.fromEntries(await Promise.all(Object.entries(v).map(async ([k, x]) => [k, await plain(x)])));
      return v;
    };
    const indexed: Record<string, string> = {};
    for (const info of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((res, rej) => {
        const r = indexedDB.open(info.name!);
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const tx = db.transaction(store, 'readonly').objectStore(store);
        const [keys, values] = await Promise.all(
          [tx.getAllKeys(), tx.getAll()].map(
            (req) => new Promise<unknown[]>((res, rej) => ((req.onsuccess = () => res(req.result as unknown[])), (req.onerror = () => rej(req.error)))),
          ),
        );
        indexed[`${info.name}/${store}`] = JSON.stringify(await Promise.all(keys!.map(async (k, i) => [await plain(k), await plain(values![i])])));
      }
      db.close();
    }
    const opfs: Record<string, string> = {};
    const walk = async (dir: FileSystemDirectoryHandle, path: string): Promise<void> => {
      for await (const [name, h] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
        if (h.kind === 'directory') await walk(h as FileSystemDirectoryHandle, `${path}${name}/`);
        else opfs[path + name] = b64(await (await (h as FileSystemFileHandle).getFile()).arrayBuffer());
      }
    };
    await walk(await navigator.storage.getDirectory(), '');
    const cached: Record<string, string> = {};
    for (const name of await caches.keys()) {
      const c = await caches.open(name);
      for (const req of await c.keys()) cached[`${name} ${req.url}`] = b64(await (await c.match(req))!.arrayBuffer());
    }
    const all = (s: Storage) => Object.fromEntries(Array.from({ length: s.length }, (_, i) => [s.key(i)!, s.getItem(s.key(i)!)!]));
    return { indexedDB: indexed, opfs, caches: cached, localStorage: all(localStorage), sessionStorage: all(sessionStorage) };
  });
}

/** Every needle found in what the page read, by where. */
export function searchOriginStorage(needles: Needle[], s: OriginStorage): string[] {
  const hits: string[] = [];
  for (const [k, v] of Object.entries(s.indexedDB)) {
    hits.push(...findNeedles(needles, `IndexedDB ${k}`, utf8(v)));
    // Bytes inside records were serialised as base64: look inside them too.
    for (const m of v.matchAll(/"\$bytes":"([A-Za-z0-9+/=]*)"/g)) hits.push(...findNeedles(needles, `IndexedDB ${k} (bytes)`, Buffer.from(m[1]!, 'base64')));
  }
  for (const [k, v] of Object.entries(s.opfs)) hits.push(...findNeedles(needles, `OPFS ${k}`, Buffer.from(v, 'base64')));
  for (const [k, v] of Object.entries(s.caches)) hits.push(...findNeedles(needles, `Cache Storage ${k}`, Buffer.from(v, 'base64')));
  for (const [area, kv] of [
    ['localStorage', s.localStorage],
    ['sessionStorage', s.sessionStorage],
  ] as const) {
    for (const [k, v] of Object.entries(kv)) hits.push(...findNeedles(needles, `${area} ${k}`, utf8(`${k}=${v}`)));
  }
  return [...new Set(hits)];
}
