// dump, tag and generate against restic 0.14. dump: the tar of a folder is byte-identical to
// restic's (awkward names go through PAX records, long ASCII paths through the USTAR prefix),
// the ZIP holds the same entries, a file comes out as its bytes, --target writes the same
// archive to a file; a hostile snapshot's bad names never reach the archive (exit 1). tag:
// the rewritten snapshots hold what restic writes (tags, original), the old ones are gone. generate: the bash
// completion completes cairn's commands and flags, the man pages exist.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CAIRN_BIN, cairn, ok, removeDir, restic, run, tempDir } from '../helpers/cli';
import { makeWeirdTree } from '../helpers/weird-tree';
import { makeReadFixture, UTC, type ReadFixture } from '../helpers/read-fixture';
import { openLocal } from '../helpers/engine';
import { writeHostileSnapshot } from '../helpers/hostile-repo';

/** Raw stdout bytes of a command. */
function bytes(cmd: string, args: string[]): Buffer {
  try {
    return execFileSync(cmd, args, { env: { ...process.env, RESTIC_PASSWORD: 'test-password', TZ: 'UTC' }, maxBuffer: 1 << 28 });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')}: ${(e as { stderr?: Buffer }).stderr?.toString()}`, { cause: e });
  }
}

const TAR_LIST = `import json,sys,tarfile
t=tarfile.open(sys.argv[1])
print(json.dumps([[m.name,m.type.decode(),m.mode,m.uid,m.gid,m.mtime,m.linkname,m.size] for m in t.getmembers()]))`;

describe('dump', () => {
  let dir: string, repo: string;

  beforeAll(async () => {
    dir = await tempDir('dump');
    repo = join(dir, 'repo');
    await makeWeirdTree(join(dir, 'src'), { scale: 1 / 64 });
    const long = join(dir, 'src', 'deep', 'x'.repeat(60), 'y'.repeat(60));
    await mkdir(long, { recursive: true });
    await writeFile(join(long, 'z'.repeat(40)), 'long path\n');
    await writeFile(join(dir, 'src', 'deep', 'n'.repeat(120)), 'long name\n');
    await ok(restic(['-r', repo, 'init']));
    await ok(restic(['-r', repo, 'backup', 'src'], { cwd: dir }));
  }, 120_000);
  afterAll(() => removeDir(dir));

  it('a folder as tar is byte-identical to restic’s, also for / and with --target', () => {
    const theirs = bytes('restic', ['-r', repo, 'dump', 'latest', '/src']);
    const mine = bytes(process.execPath, [CAIRN_BIN, '-r', repo, 'dump', 'latest', '/src']);
    expect(mine.length).toBe(theirs.length);
    expect(mine.equals(theirs)).toBe(true);
    expect(bytes(process.execPath, [CAIRN_BIN, '-r', repo, 'dump', 'latest', '/']).equals(bytes('restic', ['-r', repo, 'dump', 'latest', '/']))).toBe(true);
    const target = join(dir, 'out.tar');
    bytes(process.execPath, [CAIRN_BIN, '-r', repo, 'dump', '--target', target, 'latest', '/src/deep']);
    return readFile(target).then((b) => expect(b.equals(bytes('restic', ['-r', repo, 'dump', 'latest', '/src/deep']))).toBe(true));
  });

  it('a file is its bytes', () => {
    const f = '/src/names/with space';
    expect(bytes(process.execPath, [CAIRN_BIN, '-r', repo, 'dump', 'latest', f]).equals(bytes('restic', ['-r', repo, 'dump', 'latest', f]))).toBe(true);
  });

  it('a folder as zip holds restic’s entries with the same contents', async () => {
    const list = `import json,sys,zipfile,hashlib
z=zipfile.ZipFile(sys.argv[1])
print(json.dumps([[i.filename,i.external_attr>>16,hashlib.sha256(z.read(i)).hexdigest()] for i in z.infolist()]))`;
    const entries = async (cmd: string, args: string[], name: string) => {
      await writeFile(join(dir, name), bytes(cmd, args));
      return JSON.parse(execFileSync('python3', ['-c', list, join(dir, name)]).toString()) as unknown[];
    };
    const theirs = await entries('restic', ['-r', repo, 'dump', '-a', 'zip', 'latest', '/src'], 'r.zip');
    const mine = await entries(process.execPath, [CAIRN_BIN, '-r', repo, 'dump', '-a', 'zip', 'latest', '/src'], 'c.zip');
    expect(mine).toEqual(theirs);
  });

  it('refuses a hostile snapshot’s bad names: reported, left out, exit 1', async () => {
    const hostile = join(dir, 'hostile');
    await ok(cairn(['-r', hostile, 'init']));
    const r = await openLocal(hostile);
    await r.loadIndex();
    await writeHostileSnapshot(r, [
      { name: '..', type: 'file', data: 'up' },
      { name: 'a/b', type: 'file', data: 'slash' },
      { name: 'lnk', type: 'symlink', target: '/etc' },
      { name: 'lnk', type: 'dir', children: [{ name: 'planted', type: 'file', data: 'p' }] },
      {
        name: 'ok',
        type: 'dir',
        children: [
          { name: '..', type: 'dir', children: [{ name: 'x', type: 'file', data: 'x' }] },
          { name: 'fine', type: 'file', data: 'f' },
        ],
      },
    ]);
    const tar = join(dir, 'hostile.tar');
    const res = await cairn(['-r', hostile, 'dump', '--target', tar, 'latest', '/']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/INVALID_NAME/);
    expect(res.stderr).toMatch(/There were 4 errors/);
    const members = JSON.parse(execFileSync('python3', ['-c', TAR_LIST, tar]).toString()) as [string, string, ...unknown[]][];
    expect(members.map((m) => [m[0], m[1]])).toEqual([
      ['lnk', '2'],
      ['ok', '5'],
      ['ok/fine', '0'],
    ]);
  });
});

describe('tag', () => {
  let dir: string;
  let fx: ReadFixture;
  beforeAll(async () => {
    dir = await tempDir('tag');
    fx = await makeReadFixture(dir);
  }, 120_000);
  afterAll(() => removeDir(dir));

  it.each([
    [['--add', 'new,other'], []],
    [
      ['--remove', 't1'],
      ['--host', 'h1'],
    ],
    [
      ['--set', 'only'],
      ['--tag', 'shared'],
    ],
    [['--add', 'x', '--remove', 'shared'], ['ID0']],
  ])('%j %j rewrites the snapshots as restic does (same tags, original set)', async (change, select) => {
    const a = join(dir, `r-${change.join('')}`);
    const b = join(dir, `c-${change.join('')}`);
    await cp(fx.repo, a, { recursive: true });
    await cp(fx.repo, b, { recursive: true });
    const args = ['tag', ...change, ...select.map((s) => (s === 'ID0' ? fx.ids[0]!.slice(0, 8) : s))];
    await ok(restic(['-r', a, ...args], { env: UTC }));
    const mine = await ok(cairn(['-r', b, ...args], { env: UTC }));
    expect(mine.stdout).toMatch(/^create exclusive lock for repository\nmodified \d snapshots\n$/);
    const list = async (r: string) =>
      (JSON.parse((await ok(restic(['-r', r, 'snapshots', '--json']))).stdout) as Record<string, unknown>[]).map(({ id: _i, short_id: _s, ...rest }) => rest);
    expect(await list(b)).toEqual(await list(a));
    expect((await readdir(join(b, 'snapshots'))).length).toBe(2);
    expect(await readdir(join(b, 'locks'))).toEqual([]);
    await ok(restic(['-r', b, 'check']));
  });

  it('--json reports each change and a summary; nothing to do is an error', async () => {
    const b = join(dir, 'json');
    await cp(fx.repo, b, { recursive: true });
    const out = (await ok(cairn(['-r', b, '--json', 'tag', '--add', 'j', fx.ids[1]!]))).stdout.trim().split('\n');
    expect(JSON.parse(out[0]!)).toMatchObject({ message_type: 'changed', old_snapshot_id: fx.ids[1] });
    expect(JSON.parse(out[1]!)).toEqual({ message_type: 'summary', changed_snapshots: 1 });
    expect((await cairn(['-r', b, 'tag'])).code).toBe(1);
  });
});

describe('generate', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('generate');
  });
  afterAll(() => removeDir(dir));

  it('writes a bash completion that completes commands and flags, a zsh one, and man pages', async () => {
    const bash = join(dir, 'cairn.bash');
    const zsh = join(dir, '_cairn');
    const man = join(dir, 'man');
    await mkdir(man);
    await ok(cairn(['generate', '--bash-completion', bash, '--zsh-completion', zsh, '--man', man]));
    const complete = async (words: string[]) => {
      const script = `source ${bash}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _cairn; echo "\${COMPREPLY[*]}"`;
      return (await ok(run('bash', ['-c', script]))).stdout.trim().split(' ');
    };
    expect(await complete(['cairn', 'fi'])).toEqual(['find']);
    expect(await complete(['cairn', '-r', '/repo', 'dump', '--ar'])).toEqual(['--archive']);
    expect(await complete(['cairn', 'ls', '--so'])).toEqual(['--sort']);
    expect(await readFile(zsh, 'utf8')).toMatch(/^#compdef cairn\n/);
    const pages = (await readdir(man)).sort();
    expect(pages).toContain('cairn.1');
    expect(pages).toContain('cairn-find.1');
    expect(await readFile(join(man, 'cairn-find.1'), 'utf8')).toContain('\\-\\-ignore\\-case');
    expect((await cairn(['generate'])).code).toBe(1);
  });
});
