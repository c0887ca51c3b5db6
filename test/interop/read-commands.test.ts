// restic's read-side commands through cairn on a repository restic 0.14 wrote: stats (all
// four modes), diff, find, ls, snapshots and cat print what restic prints — byte for byte in
// text, and in --json the same objects (less the fields restic 0.18 added, which cairn
// follows: inode and message_type).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { makeReadFixture, UTC, type ReadFixture } from '../helpers/read-fixture';

describe('read-side commands against restic 0.14', () => {
  let dir: string;
  let fx: ReadFixture;
  const both = async (args: string[]) => {
    const [r, c] = await Promise.all([restic(['-r', fx.repo, ...args], { env: UTC }), cairn(['-r', fx.repo, ...args], { env: UTC })]);
    return { r, c };
  };
  const same = async (args: string[]) => {
    const { r, c } = await both(args);
    expect({ code: c.code, out: c.stdout }).toEqual({ code: r.code, out: r.stdout });
    return c.stdout;
  };
  /** restic 0.14 lists snapshots in the order it loaded them (in parallel), 0.18 (and cairn) newest
   * first: compare per-snapshot blocks, and each 'Found …' lookup result as its own block. */
  const sameBlocks = async (args: string[]) => {
    const { r, c } = await both(args);
    const blocks = (s: string) =>
      (args.includes('--json') ? (JSON.parse(s) as unknown[]).map((g) => JSON.stringify(g)) : s.split(/\n\n|\n(?=Found )/).map((b) => b.trim())).sort();
    expect(c.code).toBe(r.code);
    expect(blocks(c.stdout)).toEqual(blocks(r.stdout));
    return c.stdout;
  };
  const jsonLines = (s: string) =>
    s
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const without = (o: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

  beforeAll(async () => {
    dir = await tempDir('read-cmds');
    fx = await makeReadFixture(dir);
  }, 120_000);
  afterAll(() => removeDir(dir));

  describe('stats', () => {
    it.each(['restore-size', 'files-by-contents', 'blobs-per-file'])('--mode %s counts as restic', async (mode) => {
      const { r, c } = await both(['stats', '--json', '--mode', mode]);
      expect(JSON.parse(c.stdout)).toEqual(JSON.parse(r.stdout));
    });

    it('--mode raw-data counts every blob below the top folder (13+ blobs, not 4) as restic', async () => {
      const { r, c } = await both(['stats', '--json', '--mode', 'raw-data']);
      const theirs = JSON.parse(r.stdout) as Record<string, number>;
      const mine = JSON.parse(c.stdout) as Record<string, number>;
      expect(theirs.total_blob_count).toBeGreaterThan(12);
      expect(without(mine, 'total_uncompressed_size', 'compression_ratio', 'compression_progress', 'compression_space_saving')).toEqual(
        without(theirs, 'total_file_count'),
      );
      expect(mine.total_uncompressed_size).toBeGreaterThan(mine.total_size! * 0.9);
    });

    it('one snapshot, and the text report', async () => {
      const { r, c } = await both(['stats', '--json', '--mode', 'blobs-per-file', fx.ids[0]!]);
      expect(JSON.parse(c.stdout)).toEqual(JSON.parse(r.stdout));
      const text = (await ok(cairn(['-r', fx.repo, 'stats', '--mode', 'raw-data']))).stdout;
      expect(text).toMatch(/^scanning\.\.\.\nStats in raw-data mode:\n {5}Snapshots processed: {2}2\n {8}Total Blob Count: {2}\d+\n/);
    });
  });

  describe('diff', () => {
    it.each([[[]], [['--metadata']], [['--json']], [['--json', '--metadata']]])('%j prints what restic prints', async (flags) => {
      const out = await same(['diff', ...flags, fx.ids[0]!.slice(0, 8), fx.ids[1]!.slice(0, 8)]);
      if (flags.length === 0) {
        expect(out).toContain('T    /src/typechg/\n');
        expect(out).toMatch(/\nFiles: +\d+ new, +\d+ removed, +\d+ changed\n/);
      }
    });

    it('a snapshot against itself has no changes', async () => {
      await same(['diff', '--metadata', fx.ids[1]!, fx.ids[1]!]);
    });
  });

  describe('find', () => {
    it.each([
      [['f*']],
      [['-i', '*.txt']],
      [['--long', '*.txt', 'link']],
      [['-s', 'latest', 'f1.txt']],
      [['--path', '/nowhere', 'b']],
      [['nothing-matches']],
      [['/src/c']],
    ])('%j prints what restic prints', async (args) => {
      await sameBlocks(['find', ...args]);
    });

    it('--json has restic’s groups and fields (inode added, as 0.18)', async () => {
      const { r, c } = await both(['find', '--json', '*.txt', '<*']);
      const strip = (s: string) =>
        (JSON.parse(s) as { matches: Record<string, unknown>[] }[])
          .map((g) => JSON.stringify({ ...g, matches: g.matches.map((m) => without(m, 'inode')) }))
          .sort();
      expect(strip(c.stdout)).toEqual(strip(r.stdout));
      expect(c.stdout).toContain('\\u003chtml\\u003e \\u0026');
    });

    it('--newest/--oldest bound the modification time', async () => {
      await sameBlocks(['find', '--oldest', '2000-01-01', '--newest', '2999-01-01 10:00', 'f*']);
      await same(['find', '--newest', '01.01.2000', 'f*']);
      await same(['find', '--oldest', 'Mon Jan 2 15:04:05 -0700 MST 2999', 'f*']);
    });

    it('--blob, --tree and --pack lookups, --show-pack-id', async () => {
      const blobs = (await ok(restic(['-r', fx.repo, 'list', 'blobs']))).stdout.trim().split('\n');
      const data = blobs.find((l) => l.startsWith('data '))!.slice(5);
      const sn = JSON.parse((await ok(restic(['-r', fx.repo, 'cat', 'snapshot', fx.ids[0]!]))).stdout) as { tree: string };
      await sameBlocks(['find', '--blob', data]);
      await same(['find', '-s', fx.ids[0]!, '--json', '--blob', data]);
      const sub = (await ok(restic(['-r', fx.repo, 'find', '--json', '--tree', sn.tree]))).stdout;
      expect(sub).toBe('[]\n'); // restic 0.14 never reports a snapshot's root tree; 0.18 (and cairn) do, as path /
      expect((await ok(cairn(['-r', fx.repo, 'find', '--tree', sn.tree.slice(0, 8)]))).stdout.startsWith(`Found tree ${sn.tree}\n ... path /\n`)).toBe(true);
      const trees = blobs.filter((l) => l.startsWith('tree ')).map((l) => l.slice(5));
      const roots = await Promise.all(
        fx.ids.map(async (id) => (JSON.parse((await ok(restic(['-r', fx.repo, 'cat', 'snapshot', id]))).stdout) as { tree: string }).tree),
      );
      const dirTree = trees.find((t) => !roots.includes(t))!;
      await sameBlocks(['find', '--tree', dirTree.slice(0, 8)]);
      const { r, c } = await both(['find', '--show-pack-id', '--blob', data.slice(0, 8)]);
      // One block per hit and one per pack line, compared as sets: restic 0.14 prints the hits in
      // the order the snapshots loaded (in parallel), 0.18 and cairn oldest first.
      const pack = (s: string) =>
        s
          .split('\n')
          .filter((l) => !l.startsWith(' ... Pack '))
          .join('\n')
          .split(/\n(?=Found |Object belongs to pack )/)
          .sort();
      expect(pack(c.stdout)).toEqual(pack(r.stdout));
      expect(c.stdout).toMatch(/Object belongs to pack [0-9a-f]{64}\n/);
      const packs = (await ok(restic(['-r', fx.repo, 'list', 'packs']))).stdout.trim().split('\n');
      // restic 0.14 skips trees it saw in an earlier snapshot, 0.18 reports every snapshot's
      // hits, and a snapshot's root tree (path /): the same objects are found.
      const { r: rp, c: cp } = await both(['find', '--pack', ...packs.map((p) => p.slice(0, 8))]);
      // restic 0.14 also looks a pack's tree blobs up as data blobs (never found); 0.18 finds the folders.
      const found = (s: string, what: string) => [...new Set(s.split('\n').filter((l) => l.startsWith(what) && !roots.some((t) => l.endsWith(t))))].sort();
      expect(found(cp.stdout, 'Found blob ')).toEqual(found(rp.stdout, 'Found blob '));
      expect(found(cp.stdout, 'Found blob ').length).toBeGreaterThan(5);
      expect(found(cp.stdout, 'Found tree ')).toContain(`Found tree ${dirTree}`);
    });
  });

  describe('ls and snapshots', () => {
    it.each([
      [['latest']],
      [['-l', 'latest']],
      [['-l', 'latest', '/src/c', '/src/a/b']],
      [['--recursive', 'latest', '/src/a']],
      [['-l', fx?.ids?.[0] ?? 'latest']],
    ])('ls %j prints what restic prints', async (args) => {
      await same(['ls', ...args]);
    });

    it('ls --json has restic’s objects (inode and message_type added, as 0.18)', async () => {
      const { r, c } = await both(['ls', '--json', 'latest']);
      const strip = (s: string) => jsonLines(s).map((o) => without(o, 'inode', 'message_type'));
      expect(strip(c.stdout)).toEqual(strip(r.stdout));
      expect(jsonLines(c.stdout)[1]).toMatchObject({ message_type: 'node', struct_type: 'node' });
    });

    it('ls --sort size --reverse lists files by size, largest first (0.18)', async () => {
      const out = (await ok(cairn(['-r', fx.repo, 'ls', '-q', '--sort', 'size', '--reverse', 'latest'], { env: UTC }))).stdout.trim().split('\n');
      expect(out[0]).toBe('/src/c/big.bin');
      const ext = (await ok(cairn(['-r', fx.repo, 'ls', '-q', '--sort', 'extension', 'latest']))).stdout.trim().split('\n');
      expect(ext.slice(-2)).toEqual(['/src/a/b/f1.txt', '/src/c/big.bin'].sort((a, b) => (a.endsWith('.txt') ? 1 : b.endsWith('.txt') ? -1 : 0)));
      expect((await cairn(['-r', fx.repo, 'ls', '--sort', 'colour', 'latest'])).code).toBe(1);
    });

    it.each([
      [[]],
      [['--compact']],
      [['--latest', '1']],
      [['--group-by', 'paths']],
      [['--group-by', 'host,tags', '--latest', '1', '--json']],
      [['--json']],
      [['--tag', 'shared', '--compact']],
    ])('snapshots %j prints what restic prints', async (args) => {
      if (args.includes('host,tags')) {
        // Go prints groups in map order: compare them as a set.
        const { r, c } = await both(['snapshots', ...args]);
        const sort = (s: string) => (JSON.parse(s) as unknown[]).map((g) => JSON.stringify(g)).sort();
        expect(sort(c.stdout)).toEqual(sort(r.stdout));
        return;
      }
      await same(['snapshots', ...args]);
    });
  });

  describe('cat', () => {
    it('config, masterkey, snapshot, index, key, pack, blob as restic', async () => {
      const list = async (t: string) => (await ok(restic(['-r', fx.repo, 'list', t]))).stdout.trim().split('\n');
      await same(['cat', 'config']);
      await same(['cat', 'masterkey']);
      await same(['cat', 'snapshot', fx.ids[1]!.slice(0, 8)]);
      await same(['cat', 'index', (await list('index'))[0]!]);
      await same(['cat', 'key', (await list('keys'))[0]!]);
      await same(['cat', 'pack', (await list('packs'))[0]!]);
      const blobs = await list('blobs');
      for (const kind of ['data ', 'tree ']) await same(['cat', 'blob', blobs.find((l) => l.startsWith(kind))!.slice(5)]);
    });
  });
});
