// cairn prune judged by restic 0.14: after it, `restic check --read-data` passes, every kept
// snapshot restores byte for byte with restic, and restic's own `prune --dry-run` finds
// nothing left to delete or repack. Its --dry-run statistics are restic's, number for number.
// And the other way: after restic's prune, cairn reads and restores everything.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, diffTrees, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';
import {
  del,
  expectIntact,
  makeHistory,
  noise,
  NOTHING_LEFT,
  pruneNumbers,
  put,
  resticLeftToDo,
  text,
  type History,
  type Step,
} from '../helpers/prune-history';

const KiB = 1024;

/**
 * Four backups, the last two kept: pack 1 ends partly used (a.bin, c/c.bin and some text
 * stay, b.bin and the first t1.txt go), pack 2 (x.bin alone) unused, packs 3 and 4 used; the
 * tree packs of the forgotten snapshots partly or wholly unused.
 */
const mixed: Step[] = [
  async (s) => {
    await put(join(s, 'a.bin'), noise(1, 300 * KiB));
    await put(join(s, 'b.bin'), noise(2, 300 * KiB));
    await mkdir(join(s, 'c'), { recursive: true });
    await put(join(s, 'c', 'c.bin'), noise(3, 200 * KiB));
    for (let i = 1; i <= 5; i++) await put(join(s, `t${i}.txt`), text(i, 5000));
  },
  async (s) => put(join(s, 'x.bin'), noise(4, 200 * KiB)),
  async (s) => {
    await del(join(s, 'x.bin'));
    await del(join(s, 'b.bin'));
    await put(join(s, 'd.bin'), noise(5, 300 * KiB));
    await put(join(s, 't1.txt'), text(11, 6000));
  },
  async (s) => {
    await put(join(s, 'e.bin'), noise(6, 100 * KiB));
    await put(join(s, 't2.txt'), text(12, 6000));
  },
];

/**
 * Packs above restic's small-pack limit (16 MiB / 25): after forgetting the first backup,
 * pack 1 keeps 1.5 MiB and loses 60 KiB — 2.6 % of what is used, under the default 5 %.
 */
const large: Step[] = [
  async (s) => {
    await put(join(s, 'big1.bin'), noise(7, 1536 * KiB));
    await put(join(s, 'small.bin'), noise(8, 60 * KiB));
  },
  async (s) => {
    await del(join(s, 'small.bin'));
    await put(join(s, 'big2.bin'), noise(9, 800 * KiB));
  },
];

async function dataFiles(repo: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(join(repo, 'data'))) out.push(...(await readdir(join(repo, 'data', d))));
  return out.sort();
}

async function copyHistory(h: History, dir: string): Promise<History> {
  await cp(h.repo, join(dir, 'repo'), { recursive: true });
  return { ...h, repo: join(dir, 'repo') };
}

describe('cairn prune, checked by restic', () => {
  let dir: string;
  const h: Record<'restic' | 'mixed' | 'large' | 'uncompressed', History> = {} as never;
  let n = 0;
  const scratch = async () => {
    const d = join(dir, `case${n++}`);
    await mkdir(d, { recursive: true });
    return d;
  };

  beforeAll(async () => {
    dir = await tempDir('prune-interop');
    h.restic = await makeHistory(join(dir, 'restic'), mixed, { init: 'restic', keepLast: 2 });
    h.mixed = await makeHistory(join(dir, 'mixed'), mixed, { keepLast: 2 });
    h.large = await makeHistory(join(dir, 'large'), large, { keepLast: 1 });
    h.uncompressed = await makeHistory(join(dir, 'uncompressed'), mixed.slice(0, 2), { keepLast: 1, backupArgs: ['--compression', 'off'] });
  }, 180_000);
  afterAll(() => removeDir(dir));

  it('a repository restic made and wrote: deletes the unused packs, repacks the partly used ones, keeps the rest', async () => {
    const r = await copyHistory(h.restic, await scratch());
    const dry = pruneNumbers(await ok(restic(['-r', r.repo, 'prune', '--dry-run'])));
    const out = await ok(cairn(['-r', r.repo, 'prune']));
    expect(out.stdout).toContain('collecting packs for deletion and repacking');
    expect(pruneNumbers(out)).toEqual(dry);
    for (const step of ['repacking packs', 'rebuilding index', 'deleting obsolete index files', 'removing 4 old packs', 'done'])
      expect(out.stdout).toContain(step);
    await expectIntact(r, await scratch());
    expect(await resticLeftToDo(r.repo)).toEqual(NOTHING_LEFT);
  });

  it('a repository cairn wrote, the same way', async () => {
    const d = await scratch();
    const r = await makeHistory(d, mixed, { writer: 'cairn', keepLast: 2 });
    expect((await ok(cairn(['-r', r.repo, 'prune']))).stdout).toMatch(/removing \d+ old packs/);
    await expectIntact(r, d);
    expect(await resticLeftToDo(r.repo)).toEqual(NOTHING_LEFT);
  });

  it('all packs used: nothing to do, nothing written', async () => {
    const r = await copyHistory(h.mixed, await scratch());
    await ok(cairn(['-r', r.repo, 'prune']));
    const data = await dataFiles(r.repo);
    const index = await readdir(join(r.repo, 'index'));
    const out = await ok(cairn(['-r', r.repo, 'prune']));
    expect(pruneNumbers(out).get('total prune')).toBe('0 blobs / 0 B');
    expect(out.stdout).not.toContain('repacking packs');
    expect(await dataFiles(r.repo)).toEqual(data);
    expect(await readdir(join(r.repo, 'index'))).toEqual(index);
  });

  // The large pack has 2.6 % unused: under the default 5 %.
  it.each([
    { flags: 'the default', args: [], repacks: false },
    { flags: '--max-unused unlimited', args: ['--max-unused', 'unlimited'], repacks: false },
    { flags: '--max-unused 0', args: ['--max-unused', '0'], repacks: true },
    { flags: '--max-unused 10k', args: ['--max-unused', '10k'], repacks: true },
  ] as const)('$flags: a large partly used pack is repacked: $repacks', async ({ args, repacks }) => {
    const d = await scratch();
    const r = await copyHistory(h.large, d);
    const numbers = pruneNumbers(await ok(cairn(['-r', r.repo, 'prune', ...args])));
    // The forgotten snapshot's tree pack is deleted either way; only the data pack is repacked or not.
    expect(numbers.get('to repack') !== '0 blobs / 0 B').toBe(repacks);
    expect(numbers.get('unused size after prune')!.startsWith('0 B')).toBe(repacks);
    await expectIntact(r, d);
    expect(await resticLeftToDo(r.repo, [...args])).toEqual(NOTHING_LEFT);
  });

  it('--max-repack-size stops repacking before the limit', async () => {
    const d = await scratch();
    const r = await copyHistory(h.large, d);
    expect(pruneNumbers(await ok(cairn(['-r', r.repo, 'prune', '--max-unused', '0', '--max-repack-size', '1M']))).get('to repack')).toBe('0 blobs / 0 B');
    await expectIntact(r, d);
  });

  it('--repack-uncompressed compresses what restic stored with --compression off', async () => {
    const d = await scratch();
    const r = await copyHistory(h.uncompressed, d);
    const before = pruneNumbers(await ok(restic(['-r', r.repo, 'prune', '--dry-run', '--repack-uncompressed'])));
    expect(before.get('to repack')).not.toBe('0 blobs / 0 B');
    const out = await ok(cairn(['-r', r.repo, 'prune', '--repack-uncompressed']));
    expect(pruneNumbers(out).get('to repack')).toBe(before.get('to repack'));
    // Every blob is stored compressed now: the index gives each an uncompressed length.
    const [index] = await readdir(join(r.repo, 'index'));
    const json = JSON.parse((await ok(restic(['-r', r.repo, 'cat', 'index', index!]))).stdout) as { packs: { blobs: { uncompressed_length?: number }[] }[] };
    const blobs = json.packs.flatMap((p) => p.blobs);
    expect(blobs.length).toBeGreaterThan(8);
    expect(blobs.filter((b) => !b.uncompressed_length)).toEqual([]);
    await expectIntact(r, d);
    expect(await resticLeftToDo(r.repo, ['--repack-uncompressed'])).toEqual(NOTHING_LEFT);
  });

  it('--json prints restic’s summary object', async () => {
    const text = pruneNumbers(await ok(cairn(['-r', h.mixed.repo, 'prune', '--dry-run'])));
    const s = jsonMessage((await ok(cairn(['-r', h.mixed.repo, 'prune', '--dry-run', '--json']))).stdout, 'summary') as {
      blobs: Record<string, number>;
      packfiles: Record<string, number>;
    };
    expect(`${s.blobs.repack} blobs`).toBe(text.get('to repack')!.split(' /')[0]);
    expect(`${s.blobs.remove_total} blobs`).toBe(text.get('total prune')!.split(' /')[0]);
    expect(s.packfiles.remove).toBeGreaterThan(0);
  });

  // restic 0.14 and 0.18 decide alike where no blob is stored twice; the --dry-run -v lines
  // (all but 0.18's "not yet compressed") must match, counts and sizes.
  it.each([
    ['mixed', []],
    ['mixed', ['--max-unused', '0']],
    ['mixed', ['--max-repack-size', '20k']],
    ['large', []],
    ['large', ['--max-unused', '0']],
    ['large', ['--max-unused', '10k']],
    ['large', ['--max-unused', 'unlimited']],
    ['uncompressed', []],
    ['uncompressed', ['--repack-uncompressed']],
  ] as const)('dry run on %s %j: the same statistics as restic’s', async (name, args) => {
    const repo = h[name].repo;
    const theirs = pruneNumbers(await ok(restic(['-r', repo, 'prune', '--dry-run', '-v', ...args])));
    const ours = pruneNumbers(await ok(cairn(['-r', repo, 'prune', '--dry-run', '-v', ...args])));
    ours.delete('not yet compressed');
    expect(ours).toEqual(theirs);
    expect(theirs.size).toBeGreaterThan(12);
  });
});

describe('after restic prune', () => {
  it('cairn checks, lists and restores everything', async () => {
    const dir = await tempDir('prune-by-restic');
    try {
      const h = await makeHistory(dir, mixed, { keepLast: 2 });
      await ok(restic(['-r', h.repo, 'prune']));
      expect((await ok(cairn(['-r', h.repo, 'check', '--read-data']))).stdout).toContain('no errors were found');
      for (const [id, state] of h.kept) {
        const target = join(dir, `r-${id.slice(0, 8)}`);
        await ok(cairn(['-r', h.repo, 'restore', id, '--target', target]));
        expect(await diffTrees(state, join(target, h.src))).toEqual([]);
      }
      const again = pruneNumbers(await ok(cairn(['-r', h.repo, 'prune', '--dry-run'])));
      expect([again.get('to repack'), again.get('to delete'), again.get('total prune')]).toEqual(['0 blobs / 0 B', '0 blobs / 0 B', '0 blobs / 0 B']);
    } finally {
      await removeDir(dir);
    }
  });
});
