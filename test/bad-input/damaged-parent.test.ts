// A backup whose parent cannot be read is reported, not silently done without it. restic 0.14
// judges: a damaged parent tree (the root or a folder's) makes both tools say "tree … could not
// be loaded; the repository could be damaged", read that part of the source again, save the
// snapshot and exit 3. A snapshot file that cannot be read while looking for the parent stops
// restic (exit 1, "Error loading snapshot"); cairn names it, takes the newest readable snapshot
// as the parent (any snapshot is as good a parent) and exits 3.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, cp, mkdir, open, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { openLocal } from '../helpers/engine';
import { listSnapshots } from '../../core/repository/snapshots';
import { lookupPath } from '../../core/walker';

interface JsonError {
  message_type: string;
  error: { message?: string };
  during?: string;
  item?: string;
}

/** The archiver's JSON error lines cairn printed on stderr. */
function errors(stderr: string): JsonError[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as JsonError)
    .filter((m) => m.message_type === 'error' && m.during === 'archival');
}

/** Inverts the stored bytes of tree blob `id` in its pack, so that it fails authentication. */
async function damageTree(repoDir: string, id: string): Promise<void> {
  const repo = await openLocal(repoDir);
  await repo.loadIndex();
  const loc = repo.lookupBlob('tree', id)!;
  const file = join(repoDir, 'data', loc.packID.slice(0, 2), loc.packID);
  await chmod(file, 0o600);
  const f = await open(file, 'r+');
  try {
    const b = Buffer.alloc(loc.length);
    await f.read(b, 0, loc.length, loc.offset);
    for (let i = 0; i < b.length; i++) b[i] = b[i]! ^ 0xff;
    await f.write(b, 0, b.length, loc.offset);
  } finally {
    await f.close();
  }
}

describe('a parent that cannot be read, against restic 0.14', () => {
  let dir: string, src: string, base: string, first: string, rootTree: string, subTree: string;

  beforeAll(async () => {
    dir = await tempDir('damaged-parent');
    src = join(dir, 'src');
    for (const [p, text] of [
      ['a.txt', 'a'],
      ['sub/b.txt', 'b'],
      ['sub/c.txt', 'c'],
      ['other/d.txt', 'd'],
    ]) {
      await mkdir(join(src, p, '..'), { recursive: true });
      await writeFile(join(src, p), text.repeat(1000));
    }
    base = join(dir, 'base');
    await ok(cairn(['-r', base, 'init']));
    await ok(cairn(['-r', base, 'backup', '--host', 'h', src]));
    const repo = await openLocal(base);
    await repo.loadIndex();
    const [s] = await listSnapshots(repo);
    first = s!.id;
    rootTree = s!.snapshot.tree;
    subTree = (await lookupPath(repo, rootTree, [...src.split('/').filter(Boolean), 'sub']))!.subtree!;
  }, 60_000);
  afterAll(() => removeDir(dir));

  /** Two copies of the base repository with `damage` done to each: one for cairn, one for restic. */
  async function twins(name: string, damage: (repoDir: string) => Promise<void>): Promise<[string, string]> {
    const pair: [string, string] = [join(dir, `${name}-cairn`), join(dir, `${name}-restic`)];
    for (const r of pair) {
      await cp(base, r, { recursive: true });
      await damage(r);
    }
    return pair;
  }

  it('a damaged root tree: both tools warn in the same words, read every file again, save the snapshot and exit 3', async () => {
    const [c, r] = await twins('root', (d) => damageTree(d, rootTree));
    const mine = await cairn(['-r', c, 'backup', '--json', '--host', 'h', src]);
    expect(mine.code).toBe(3);
    const [e, ...more] = errors(mine.stderr);
    expect(more).toEqual([]);
    expect(e!.item).toBe('/');
    expect(e!.error.message).toMatch(new RegExp(`^tree ${rootTree} could not be loaded; the repository could be damaged: `));
    const summary = jsonMessage(mine.stdout, 'summary');
    expect(summary).toMatchObject({ files_new: 4, files_unmodified: 0, parent: first });
    expect(summary.snapshot_id).toMatch(/^[0-9a-f]{64}$/);

    const theirs = await restic(['--no-cache', '-r', r, 'backup', '--host', 'h', src]);
    expect(theirs.code).toBe(3);
    expect(theirs.stderr).toContain(`error: tree ${rootTree} could not be loaded; the repository could be damaged: `);
    expect(theirs.stdout).toMatch(/Files: +4 new, +0 changed, +0 unmodified/);
  });

  it('a damaged folder tree: that folder is named and read again, the rest reused from the parent', async () => {
    const [c, r] = await twins('sub', (d) => damageTree(d, subTree));
    const mine = await cairn(['-r', c, 'backup', '--json', '--host', 'h', src]);
    expect(mine.code).toBe(3);
    expect(errors(mine.stderr).map((e) => e.item)).toEqual([join(src, 'sub')]);
    expect(errors(mine.stderr)[0]!.error.message).toMatch(new RegExp(`^tree ${subTree} could not be loaded; the repository could be damaged: `));
    expect(jsonMessage(mine.stdout, 'summary')).toMatchObject({ files_new: 2, files_unmodified: 2 });

    const theirs = await restic(['--no-cache', '-r', r, 'backup', '--json', '--host', 'h', src]);
    expect(theirs.code).toBe(3);
    const lines = (theirs.stdout + '\n' + theirs.stderr).split('\n');
    expect(lines.filter((l) => l.includes('"message_type":"error"'))).toEqual([
      JSON.stringify({ message_type: 'error', error: {}, during: 'archival', item: join(src, 'sub') }),
    ]);
    expect(jsonMessage(theirs.stdout, 'summary')).toMatchObject({ files_new: 2, files_unmodified: 2 });
  });

  it('an unreadable snapshot file: cairn names it and takes the newest readable parent (exit 3); restic 0.14 stops (exit 1)', async () => {
    const [c, r] = await twins('snapshot', async (d) => {
      await ok(cairn(['-r', d, 'backup', '--host', 'elsewhere', src]));
      const other = (await readdir(join(d, 'snapshots'))).find((id) => id !== first)!;
      await chmod(join(d, 'snapshots', other), 0o600);
      await writeFile(join(d, 'snapshots', other), 'garbage');
    });
    const damaged = (await readdir(join(c, 'snapshots'))).find((id) => id !== first)!;
    const mine = await cairn(['-r', c, 'backup', '--json', '--host', 'h', src]);
    expect(mine.code).toBe(3);
    const [e, ...more] = errors(mine.stderr);
    expect(more).toEqual([]);
    expect(e!.error.message).toBe(`could not load snapshot ${damaged.slice(0, 8)}: content does not match its name`);
    expect(jsonMessage(mine.stdout, 'summary')).toMatchObject({ parent: first, files_unmodified: 4, files_new: 0 });

    const theirs = await restic(['--no-cache', '-r', r, 'backup', '--host', 'h', src]);
    expect(theirs.code).toBe(1);
    const alsoDamaged = (await readdir(join(r, 'snapshots'))).find((id) => id !== first)!;
    expect(theirs.stderr).toContain(`Error loading snapshot ${alsoDamaged.slice(0, 8)}`);
  });
});
