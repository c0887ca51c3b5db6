import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, TEST_POL } from '../../test/helpers/mem-repo';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { Chunker } from '../chunker';
import { Key } from '../crypto/keys';
import { hashID } from '../id';
import { MemoryBackend } from '../backend/mem';
import { PackerManager } from '../repository/packer-manager';
import { FileSaver, isSmallJob } from './file-saver';
import type { FileContentReader } from './source';

beforeAll(() => initEngine());

/** Chunk IDs of `data` cut by restic's chunker in one pass (the reference). */
async function referenceIDs(data: Uint8Array): Promise<string[]> {
  const c = new Chunker(TEST_POL);
  const ids: string[] = [];
  let start = 0;
  for (;;) {
    const n = c.scan(data.subarray(start));
    if (n < 0) break;
    ids.push(await hashID(data.subarray(start, start + n)));
    start += n;
  }
  if (start < data.length) ids.push(await hashID(data.subarray(start)));
  return ids;
}

/**
 * Reads `files[ref]`, at most `step` bytes per read, through `open` or `read`; with `whole`,
 * `open` hands each file over at once (readAll), as the browser reader does for small files.
 */
function reader(files: Map<string, Uint8Array>, step: number, withOpen: boolean, whole = false): FileContentReader {
  return {
    async *read(ref) {
      const d = files.get(ref as string)!;
      for (let at = 0; at < d.length; at += step) yield d.slice(at, at + step);
    },
    open: withOpen
      ? (ref) => {
          const d = files.get(ref as string)!;
          let at = 0;
          if (whole) return { readInto: () => Promise.reject(new Error('readInto after readAll')), readAll: () => Promise.resolve(d.subarray()), close() {} };
          return {
            readInto(buf) {
              const n = Math.min(buf.length, step, d.length - at);
              buf.set(d.subarray(at, at + n));
              at += n;
              return Promise.resolve(n);
            },
            close() {},
          };
        }
      : undefined,
  };
}

describe('FileSaver', () => {
  it('cuts exactly as the chunker does, for small files read whole and files that grew past their scanned size', async () => {
    const files = new Map<string, Uint8Array>([
      ['empty', new Uint8Array(0)],
      ['tiny', seededBytes(1, 10)],
      ['small', seededBytes(2, 60_000)],
      ['grew', seededBytes(3, 3_500_000)], // scanned as 100 bytes: starts in a small buffer
      ['big', seededBytes(4, 9_000_000)],
      ['min', seededBytes(5, 512 * 1024)],
      ['min+1', seededBytes(6, 512 * 1024 + 1)],
    ]);
    const scanned: Record<string, number> = { empty: 0, tiny: 10, small: 60_000, grew: 100, big: 9_000_000, min: 512 * 1024, 'min+1': 512 * 1024 + 1 };
    expect(isSmallJob({ ref: 'grew', path: 'grew', size: 100 })).toBe(true);
    expect(isSmallJob({ ref: 'big', path: 'big', size: 9_000_000 })).toBe(false);
    for (const [step, withOpen, whole] of [
      [1 << 20, true, false],
      [70_000, true, false],
      [333_333, false, false],
      [1 << 20, true, true],
    ] as const) {
      const key = Key.random();
      const packs = new PackerManager({ key, saver: new MemoryBackend(), onPackSaved: () => {} });
      const saver = new FileSaver({
        key,
        polynomial: TEST_POL,
        version: 2,
        compression: 'auto',
        packs,
        reader: reader(files, step, withOpen, whole),
        claim: async () => true,
      });
      // Several at once, as the saver endpoint runs them, so buffers are shared and reused.
      const names = [...files.keys(), ...files.keys()];
      const saved = await Promise.all(names.map((name) => saver.save({ ref: name, path: name, size: scanned[name]! })));
      for (const [i, name] of names.entries()) {
        const data = files.get(name)!;
        expect(saved[i]!.size, name).toBe(data.length);
        expect(saved[i]!.content, `${name} step ${step}`).toEqual(await referenceIDs(data));
        expect(saved[i]!.changed, name).toBe(name === 'grew');
      }
      await packs.flush();
    }
  });

  it('a reader whose short reads end the file is not asked again for a file that ended where it was listed; one that grew or shrank is read to its end', async () => {
    const files = new Map<string, Uint8Array>([
      ['empty', new Uint8Array(0)],
      ['tiny', seededBytes(1, 10)],
      ['small', seededBytes(2, 60_000)],
      ['grew', seededBytes(3, 3_500_000)],
      ['shrank', seededBytes(4, 5_000)],
    ]);
    const listed: Record<string, number> = { empty: 0, tiny: 10, small: 60_000, grew: 100, shrank: 6_000 };
    const reads: Record<string, number> = {};
    const base = reader(files, 1 << 20, true);
    const counting: FileContentReader = {
      ...base,
      async open(ref, size) {
        const f = await base.open!(ref, size);
        return { ...f, shortReadEnds: true, readInto: (buf) => ((reads[ref as string] = (reads[ref as string] ?? 0) + 1), f.readInto(buf)) };
      },
    };
    const key = Key.random();
    const packs = new PackerManager({ key, saver: new MemoryBackend(), onPackSaved: () => {} });
    const saver = new FileSaver({ key, polynomial: TEST_POL, version: 2, compression: 'auto', packs, reader: counting, claim: async () => true });
    for (const [name, data] of files) {
      const saved = await saver.save({ ref: name, path: name, size: listed[name]! });
      expect(saved.size, name).toBe(data.length);
      expect(saved.content, name).toEqual(await referenceIDs(data));
    }
    await packs.flush();
    // One read each where the file ended as listed; to the read that returns 0 where it did not.
    expect(reads).toEqual({ empty: 1, tiny: 1, small: 1, grew: 6, shrank: 2 });
  });
});
