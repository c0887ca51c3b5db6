// The behaviour every Backend must show, as one vitest suite each backend's test runs
// (modelled on restic's internal/backend/test/tests.go). Only tests import this file.
//
// Usage, in a *.test.ts:
//   backendConformanceSuite('MemoryBackend', async () => ({ backend: new MemoryBackend(), cleanup: async () => {} }));
// `make` runs before every test and must return an empty backend; `cleanup` runs after
// `backend.close()`. Data is seeded, names are real SHA-256 IDs of the bytes.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCairnError, type ErrorCode } from '../../core/errors';
import { FILE_TYPES, type Backend, type FileInfo, type FileType, type Handle, type LoadOptions } from '../../core/backend/backend';
import { seededBytes, seededRandom } from './fault-backend';

export interface BackendUnderTest {
  backend: Backend;
  cleanup(): Promise<void>;
}

const ID_TYPES = FILE_TYPES.filter((t): t is Exclude<FileType, 'config'> => t !== 'config');

export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Seeded bytes and the content-addressed handle restic would give them. */
export async function testObject(type: Exclude<FileType, 'config'>, seed: number, size: number) {
  const data = seededBytes(seed, size);
  const h: Handle = { type, name: await sha256Hex(data) };
  return { h, data };
}

export async function listAll(be: Backend, type: FileType): Promise<FileInfo[]> {
  const out: FileInfo[] = [];
  for await (const fi of be.list(type)) out.push(fi);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export async function expectCode(p: Promise<unknown>, code: ErrorCode): Promise<void> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e, `expected a ${code} error`).toBeDefined();
  expect(isCairnError(e) ? e.code : e).toBe(code);
}

/** Byte equality without vitest's element-wise deep equal, which is slow on MiB arrays. */
export function expectBytes(actual: Uint8Array, expected: Uint8Array, label?: string): void {
  expect(actual, label).toBeInstanceOf(Uint8Array);
  expect(actual.length, label).toBe(expected.length);
  let firstDiff = -1;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) {
      firstDiff = i;
      break;
    }
  }
  expect(firstDiff, `${label ?? 'bytes'}: first differing offset`).toBe(-1);
}

async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function aborted(): AbortSignal {
  const ac = new AbortController();
  ac.abort();
  return ac.signal;
}

export function backendConformanceSuite(name: string, make: () => Promise<BackendUnderTest>): void {
  describe(name, () => {
    let be: Backend;
    let made: BackendUnderTest | undefined;

    beforeEach(async () => {
      made = await make();
      be = made.backend;
    });
    afterEach(async () => {
      if (!made) return;
      await made.backend.close();
      await made.cleanup();
      made = undefined;
    });

    it('starts empty', async () => {
      for (const t of ID_TYPES) expect(await listAll(be, t), t).toEqual([]);
      await expectCode(be.stat({ type: 'config', name: '' }), 'NOT_FOUND');
    });

    it('saves, loads, stats and removes the config file', async () => {
      const h: Handle = { type: 'config', name: '' };
      await expectCode(be.load(h), 'NOT_FOUND');
      const data = seededBytes(7, 155);
      await be.save(h, data);
      expectBytes(await be.load(h), data);
      expect((await be.stat(h)).size).toBe(155);
      for (const t of ID_TYPES) expect(await listAll(be, t), t).toEqual([]);
      await be.remove(h);
      await expectCode(be.load(h), 'NOT_FOUND');
    });

    it.each(ID_TYPES)('round-trips a %s object', async (type) => {
      const { h, data } = await testObject(type, 11, 3001);
      await be.save(h, data);
      expectBytes(await be.load(h), data);
      expect(await be.stat(h)).toEqual({ name: h.name, size: 3001 });
      expect(await listAll(be, type)).toEqual([{ name: h.name, size: 3001 }]);
      await be.remove(h);
      await expectCode(be.stat(h), 'NOT_FOUND');
      expect(await listAll(be, type)).toEqual([]);
    });

    it('keeps the types apart', async () => {
      const objs = await Promise.all(ID_TYPES.map((t, i) => testObject(t, 100 + i, 50 + i)));
      for (const o of objs) await be.save(o.h, o.data);
      for (const o of objs) expect(await listAll(be, o.h.type)).toEqual([{ name: o.h.name, size: o.data.length }]);
      // The same name under another type is another object.
      const key = objs.find((o) => o.h.type === 'keys')!;
      await expectCode(be.stat({ type: 'locks', name: key.h.name }), 'NOT_FOUND');
    });

    it('lists data objects across their two-hex sub-directories, names only', async () => {
      const objs = await Promise.all(Array.from({ length: 40 }, (_, i) => testObject('data', 1000 + i, 100 + i)));
      expect(new Set(objs.map((o) => o.h.name.slice(0, 2))).size).toBeGreaterThan(20);
      await forEachLimit(objs, 8, (o) => be.save(o.h, o.data));
      const want = objs.map((o) => ({ name: o.h.name, size: o.data.length })).sort((a, b) => (a.name < b.name ? -1 : 1));
      expect(await listAll(be, 'data')).toEqual(want);
      expect(await listAll(be, 'index')).toEqual([]);
    });

    it('lists more objects than one page of a listing API holds', async () => {
      const objs = await Promise.all(Array.from({ length: 1001 }, (_, i) => testObject('snapshots', 5000 + i, 16 + (i % 7))));
      await forEachLimit(objs, 16, (o) => be.save(o.h, o.data));
      const listed = await listAll(be, 'snapshots');
      expect(listed.length).toBe(1001);
      expect(new Set(listed.map((fi) => fi.name))).toEqual(new Set(objs.map((o) => o.h.name)));
      const sizes = new Map(objs.map((o) => [o.h.name, o.data.length]));
      for (const fi of listed) expect(fi.size).toBe(sizes.get(fi.name));
    });

    describe('ranged loads', () => {
      const size = 10_000;
      const table: [string, LoadOptions, number, number][] = [
        ['no options', {}, 0, size],
        ['offset only', { offset: 1234 }, 1234, size],
        ['offset and length', { offset: 1234, length: 100 }, 1234, 1334],
        ['length only', { length: 5000 }, 0, 5000],
        ['first byte', { offset: 0, length: 1 }, 0, 1],
        ['last byte', { offset: size - 1, length: 1 }, size - 1, size],
        ['last byte, offset only', { offset: size - 1 }, size - 1, size],
        ['up to the exact end', { offset: 9000, length: 1000 }, 9000, size],
        ['length 0 means to the end', { offset: 10, length: 0 }, 10, size],
      ];
      it.each(table)('%s', async (_, opts, start, end) => {
        const { h, data } = await testObject('data', 21, size);
        await be.save(h, data);
        expectBytes(await be.load(h, opts), data.slice(start, end));
      });

      it('returns the right bytes for seeded random ranges', async () => {
        const { h, data } = await testObject('data', 22, size);
        await be.save(h, data);
        const random = seededRandom(23);
        for (let i = 0; i < 30; i++) {
          const offset = Math.floor(random() * size);
          const length = Math.floor(random() * (size - offset + 1));
          const end = length === 0 ? size : offset + length;
          expectBytes(await be.load(h, { offset, length }), data.slice(offset, end), `offset ${offset} length ${length}`);
        }
      });

      it.each([
        ['runs past the end', { offset: size - 50, length: 100 }],
        ['starts at the end', { offset: size, length: 1 }],
        ['starts past the end', { offset: size + 100, length: 100 }],
      ] as [string, LoadOptions][])('rejects a range that %s (permanent, not NOT_FOUND)', async (_, opts) => {
        const { h, data } = await testObject('data', 24, size);
        await be.save(h, data);
        const e = await be.load(h, opts).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(isCairnError(e), 'a CairnError').toBe(true);
        expect(isCairnError(e) && e.code).not.toBe('NOT_FOUND');
        expect(isCairnError(e) && e.retryable).toBe(false);
      });

      it('loads a zero-length object', async () => {
        const { h, data } = await testObject('index', 25, 0);
        await be.save(h, data);
        expectBytes(await be.load(h), new Uint8Array(0));
        expect((await be.stat(h)).size).toBe(0);
        expect(await listAll(be, 'index')).toEqual([{ name: h.name, size: 0 }]);
      });
    });

    it('reports NOT_FOUND for a missing object', async () => {
      const { h } = await testObject('data', 31, 10);
      await expectCode(be.load(h), 'NOT_FOUND');
      await expectCode(be.load(h, { offset: 1, length: 2 }), 'NOT_FOUND');
      await expectCode(be.stat(h), 'NOT_FOUND');
      await expectCode(be.remove(h), 'NOT_FOUND');
      const { h: k } = await testObject('keys', 32, 10);
      await expectCode(be.load(k), 'NOT_FOUND');
    });

    it('removes an object once', async () => {
      const a = await testObject('locks', 41, 20);
      const b = await testObject('locks', 42, 20);
      await be.save(a.h, a.data);
      await be.save(b.h, b.data);
      await be.remove(a.h);
      await expectCode(be.load(a.h), 'NOT_FOUND');
      await expectCode(be.remove(a.h), 'NOT_FOUND');
      expect(await listAll(be, 'locks')).toEqual([{ name: b.h.name, size: 20 }]);
      expectBytes(await be.load(b.h), b.data);
    });

    it('saves the same content-addressed object twice harmlessly', async () => {
      const { h, data } = await testObject('data', 51, 4096);
      await be.save(h, data);
      await be.save(h, data.slice());
      expectBytes(await be.load(h), data);
      expect(await listAll(be, 'data')).toEqual([{ name: h.name, size: 4096 }]);
    });

    it("keeps stored bytes apart from the caller's buffers", async () => {
      const { h, data } = await testObject('snapshots', 52, 64);
      const input = data.slice();
      await be.save(h, input);
      input.fill(0);
      const loaded = await be.load(h);
      expectBytes(loaded, data);
      loaded.fill(0);
      expectBytes(await be.load(h), data);
    });

    describe('abort', () => {
      it('rejects every call made with an aborted signal with ABORTED, changing nothing', async () => {
        const { h, data } = await testObject('data', 61, 100);
        await expectCode(be.save(h, data, { signal: aborted() }), 'ABORTED');
        await expectCode(be.stat(h), 'NOT_FOUND');
        await be.save(h, data);
        await expectCode(be.load(h, { signal: aborted() }), 'ABORTED');
        await expectCode(be.stat(h, { signal: aborted() }), 'ABORTED');
        await expectCode(be.remove(h, { signal: aborted() }), 'ABORTED');
        expectBytes(await be.load(h), data);
        const listing = (async () => {
          for await (const _ of be.list('data', { signal: aborted() })) throw new Error('listed despite abort');
        })();
        await expectCode(listing, 'ABORTED');
      });

      it('stops a listing aborted part-way', async () => {
        const objs = await Promise.all(Array.from({ length: 5 }, (_, i) => testObject('index', 70 + i, 10)));
        for (const o of objs) await be.save(o.h, o.data);
        const ac = new AbortController();
        let seen = 0;
        const listing = (async () => {
          for await (const _ of be.list('index', { signal: ac.signal })) {
            seen++;
            ac.abort();
          }
        })();
        await expectCode(listing, 'ABORTED');
        expect(seen).toBe(1);
      });
    });

    it('handles concurrent saves, of different and of the same object', async () => {
      const objs = await Promise.all(Array.from({ length: 32 }, (_, i) => testObject('data', 80 + i, 1000 + i * 37)));
      const same = await testObject('data', 200, 50_000);
      await Promise.all([...objs.map((o) => be.save(o.h, o.data)), ...Array.from({ length: 8 }, () => be.save(same.h, same.data))]);
      for (const o of [...objs, same]) expectBytes(await be.load(o.h), o.data);
      expect((await listAll(be, 'data')).length).toBe(33);
    });

    it('round-trips a large object', async () => {
      const size = 5 * 1024 * 1024 + 123;
      const { h, data } = await testObject('data', 300, size);
      await be.save(h, data);
      expect((await be.stat(h)).size).toBe(size);
      const all = await be.load(h);
      expect(all.length).toBe(size);
      expect(await sha256Hex(all)).toBe(h.name);
      const mid = await be.load(h, { offset: 2 * 1024 * 1024 + 7, length: 1024 * 1024 });
      expectBytes(mid, data.subarray(2 * 1024 * 1024 + 7, 3 * 1024 * 1024 + 7));
    });
  });
}
