// restic's backup flags in `cairn backup`: cairn and restic 0.14 back up the same tree with
// the same flags into one repository (as different hosts), and the two snapshots must hold the
// same paths (and, for --stdin, the same node and bytes). Flags restic 0.14 lacks
// (--skip-if-unchanged, --stdin-from-command, --read-concurrency) are checked against
// restic 0.18's documented behaviour, and restic 0.14 checks the repository.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { startS3 } from '../helpers/s3-server';
import { startFaultProxy } from '../helpers/fault-proxy';

/** Paths in the newest snapshot of `host`, sorted. */
async function lsPaths(repo: string, host: string): Promise<string[]> {
  const out = (await ok(restic(['-r', repo, 'ls', '--json', '--host', host, 'latest']))).stdout;
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { struct_type: string; path?: string })
    .filter((o) => o.struct_type === 'node')
    .map((o) => o.path!)
    .sort();
}

/** Every file of the repository with its size (what a dry run must leave as it was). */
async function repoFiles(repo: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else out.push(`${join(d, e.name).slice(repo.length)} ${(await stat(join(d, e.name))).size}`);
    }
  };
  await walk(repo);
  return out.sort();
}

describe('cairn backup flags, against restic 0.14', () => {
  let dir: string, repo: string, src: string;
  let host = 0;
  const cleanups: (() => Promise<void>)[] = [];

  /** Backs `targets` up with `flags` by both tools; resolves to both snapshots' paths. */
  async function both(flags: string[], targets: string[] = [src], env?: Record<string, string>) {
    const h = `h${host++}`;
    const [c, r] = await Promise.all([
      cairn(['-r', repo, 'backup', '--host', `cairn-${h}`, ...flags, ...targets], { env }),
      restic(['-r', repo, 'backup', '--host', `restic-${h}`, ...flags, ...targets], { env }),
    ]);
    if (c.code !== 0 || r.code !== 0) throw new Error(`cairn ${c.code}: ${c.stderr}\nrestic ${r.code}: ${r.stderr}`);
    const [mine, theirs] = await Promise.all([lsPaths(repo, `cairn-${h}`), lsPaths(repo, `restic-${h}`)]);
    return { mine, theirs, cairn: c, restic: r };
  }

  beforeAll(async () => {
    dir = await tempDir('backup-flags');
    repo = join(dir, 'repo');
    src = join(dir, 'src');
    const files: Record<string, string> = {
      'keep.txt': 'keep\n',
      'big.bin': 'b'.repeat(4096),
      'small.bin': 's'.repeat(1000),
      'notes.tmp': 'tmp\n',
      'App.LOG': 'log\n',
      'skip/me.txt': 'skipped by the pattern file\n',
      'cache/CACHEDIR.TAG': 'Signature: 8a477f597d28d172789f06886806bc55\n',
      'cache/blob': 'cached\n',
      'badcache/CACHEDIR.TAG': 'Signature: 00000000000000000000000000000000\n',
      'badcache/blob': 'kept: wrong signature\n',
      'private/.nobackup': '',
      'private/secret.txt': 'secret\n',
      'tagged/TAG': 'magic header and more',
      'tagged/x.txt': 'x\n',
      'mistagged/TAG': 'other header',
      'mistagged/y.txt': 'y\n',
      'deep/a/b/c.txt': 'c\n',
      'with space.txt': 'space\n',
    };
    for (const [f, d] of Object.entries(files)) {
      await mkdir(join(src, f, '..'), { recursive: true });
      await writeFile(join(src, f), d);
    }
    await ok(cairn(['-r', repo, 'init']));
  }, 60_000);
  afterAll(async () => {
    for (const c of cleanups) await c();
    await removeDir(dir);
  });

  it('--exclude-caches, --exclude-if-present (with and without a header), --exclude-larger-than: the same paths left out as restic', async () => {
    for (const flags of [
      ['--exclude-caches'],
      ['--exclude-if-present', '.nobackup', '--exclude-if-present', 'TAG:magic header'],
      ['--exclude-larger-than', '2k'],
    ]) {
      const { mine, theirs, cairn: c } = await both(flags);
      expect(mine, flags.join(' ')).toEqual(theirs);
      expect(mine.length, flags.join(' ')).toBeGreaterThan(10);
      if (flags[0] === '--exclude-caches') {
        expect(mine).toContain(join(src, 'cache/CACHEDIR.TAG'));
        expect(mine).not.toContain(join(src, 'cache/blob'));
        expect(c.stderr).toContain(`invalid signature in exclusion tagfile "${join(src, 'badcache/CACHEDIR.TAG')}"`);
      }
    }
  });

  it('--one-file-system keeps mount points as empty folders and nothing below them, as restic (/dev and its tmpfs, devpts)', async () => {
    // Precondition of the case: /dev/shm is a file system of its own here.
    expect((await stat('/dev/shm')).dev).not.toBe((await stat('/dev')).dev);
    const { mine, theirs } = await both(['-x'], ['/dev']);
    expect(mine).toEqual(theirs);
    expect(mine).toContain('/dev/shm');
    expect(mine.filter((p) => p.startsWith('/dev/shm/') || p.startsWith('/dev/pts/'))).toEqual([]);
  });

  it('--exclude, --iexclude, --exclude-file and --iexclude-file (with $VARIABLES): the same paths left out, only --exclude recorded', async () => {
    await writeFile(join(dir, 'ex.txt'), '# comment\n\n  $SKIPDIR/me.txt  \n');
    await writeFile(join(dir, 'iex.txt'), '*.LOG\n');
    const flags = ['--exclude', '*.tmp', '--iexclude', 'BIG.BIN', '--exclude-file', join(dir, 'ex.txt'), '--iexclude-file', join(dir, 'iex.txt')];
    const { mine, theirs } = await both(flags, [src], { SKIPDIR: 'skip' });
    expect(mine).toEqual(theirs);
    for (const gone of ['notes.tmp', 'big.bin', 'skip/me.txt', 'App.LOG']) expect(mine).not.toContain(join(src, gone));
    const snaps = JSON.parse((await ok(restic(['-r', repo, 'snapshots', '--json']))).stdout) as { hostname: string; excludes?: string[] }[];
    const excludes = (h: string) => snaps.filter((s) => s.hostname === h).at(-1)!.excludes;
    expect(excludes(`cairn-h${host - 1}`)).toEqual(excludes(`restic-h${host - 1}`));
  });

  it('--files-from (globs, comments), --files-from-verbatim and --files-from-raw: the same targets and snapshot', async () => {
    await writeFile(join(dir, 'from.txt'), `# a comment\n${src}/*.bin\n  ${src}/deep  \n${src}/nothing-*\n`);
    await writeFile(join(dir, 'verbatim.txt'), `${src}/with space.txt\n\n${src}/keep.txt\n`);
    await writeFile(join(dir, 'raw.bin'), `${src}/private\0${src}/tagged/x.txt\0`);
    const {
      mine,
      theirs,
      cairn: c,
    } = await both(['--files-from', join(dir, 'from.txt'), '--files-from-verbatim', join(dir, 'verbatim.txt'), '--files-from-raw', join(dir, 'raw.bin')], []);
    expect(mine).toEqual(theirs);
    expect(mine).toContain(join(src, 'with space.txt'));
    expect(mine).toContain(join(src, 'deep/a/b/c.txt'));
    expect(c.stderr).toContain(`pattern "${src}/nothing-*" does not match any files, skipping`);
  });

  it('--dry-run writes nothing, not even a lock, and -vv lists the items restic lists', async () => {
    const before = await repoFiles(repo);
    const c = await ok(cairn(['-r', repo, 'backup', '-n', '-vv', '--host', 'dry-cairn', src]));
    const r = await ok(restic(['-r', repo, 'backup', '--dry-run', '-vv', '--host', 'dry-restic', src]));
    expect(await repoFiles(repo)).toEqual(before);
    const items = (out: string) =>
      out
        .split('\n')
        .filter((l) => /^(new|modified|unchanged) /.test(l))
        .map((l) => l.replace(/, saved in .*$/, '').replace(/ +/, ' '))
        .sort();
    expect(items(c.stdout)).toEqual(items(r.stdout));
    expect(items(c.stdout).length).toBeGreaterThan(20);
    expect(c.stdout).toContain('Would add to the repository:');
    expect(c.stdout).not.toMatch(/snapshot \w+ saved/);
    const json = jsonMessage((await ok(cairn(['-r', repo, 'backup', '-n', '--json', '--host', 'dry-cairn', src]))).stdout, 'summary');
    expect(json.dry_run).toBe(true);
    expect(json.snapshot_id).toBeUndefined();
    expect(await repoFiles(repo)).toEqual(before);
  });

  it('--stdin --stdin-filename: the same node and bytes as restic; no data is an error, as in restic', async () => {
    const data = 'a database dump\n'.repeat(1000);
    const [c, r] = await Promise.all([
      ok(cairn(['-r', repo, 'backup', '--stdin', '--stdin-filename', 'dumps/db.sql', '--host', 'stdin-cairn'], { input: data })),
      ok(restic(['-r', repo, 'backup', '--stdin', '--stdin-filename', 'dumps/db.sql', '--host', 'stdin-restic'], { input: data })),
    ]);
    expect(c.code + r.code).toBe(0);
    expect(await lsPaths(repo, 'stdin-cairn')).toEqual(['/dumps', '/dumps/db.sql']);
    expect(await lsPaths(repo, 'stdin-restic')).toEqual(['/dumps', '/dumps/db.sql']);
    const node = async (h: string) => {
      const line = (await ok(restic(['-r', repo, 'ls', '--json', '--host', h, 'latest']))).stdout.split('\n').find((l) => l.includes('db.sql'))!;
      const { name, type, mode, size, uid, gid, permissions } = JSON.parse(line) as Record<string, unknown>;
      return { name, type, mode, size, uid, gid, permissions };
    };
    expect(await node('stdin-cairn')).toEqual(await node('stdin-restic'));
    expect((await ok(restic(['-r', repo, 'dump', '--host', 'stdin-cairn', 'latest', '/dumps/db.sql']))).stdout).toBe(data);
    const empty = await cairn(['-r', repo, 'backup', '--stdin', '--host', 'stdin-empty'], { input: '' });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('no data read');
    expect(empty.stderr).toContain('snapshot is empty');
  });

  it('--stdin-from-command saves the output; a failing command saves no snapshot (restic 0.17)', async () => {
    const snaps = async () => (JSON.parse((await ok(restic(['-r', repo, 'snapshots', '--json', '--host', 'cmd']))).stdout) as unknown[]).length;
    await ok(
      cairn([
        '-r',
        repo,
        'backup',
        '--host',
        'cmd',
        '--stdin-filename',
        'out.txt',
        '--stdin-from-command',
        '--',
        'sh',
        '-c',
        'echo from the command; echo note >&2',
      ]),
    );
    expect((await ok(restic(['-r', repo, 'dump', '--host', 'cmd', 'latest', '/out.txt']))).stdout).toBe('from the command\n');
    const failed = await cairn(['-r', repo, 'backup', '--host', 'cmd', '--stdin-from-command', '--', 'sh', '-c', 'echo partial; echo oops >&2; exit 3']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('subprocess sh: oops');
    expect(failed.stderr).toContain('command failed: exit status 3');
    expect(await snaps()).toBe(1);
  });

  it('--skip-if-unchanged saves no snapshot when nothing changed, and one when something did (restic 0.17)', async () => {
    // Every folder on the path is in the snapshot: /tmp changes whenever anyone makes a temp
    // file, which is a change for restic as for cairn. /var/tmp holds still.
    const dir2 = await mkdtemp('/var/tmp/cairn-skip-');
    cleanups.push(() => removeDir(dir2));
    await writeFile(join(dir2, 'a.txt'), 'a\n');
    const count = async () => (JSON.parse((await ok(restic(['-r', repo, 'snapshots', '--json', '--host', 'skip']))).stdout) as unknown[]).length;
    await ok(cairn(['-r', repo, 'backup', '--host', 'skip', '--skip-if-unchanged', dir2]));
    const again = await ok(cairn(['-r', repo, 'backup', '--host', 'skip', '--skip-if-unchanged', dir2]));
    expect(again.stdout).toContain('skipped creating snapshot');
    expect(await count()).toBe(1);
    const json = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', '--host', 'skip', '--skip-if-unchanged', dir2]))).stdout, 'summary');
    expect(json.snapshot_id).toBeUndefined();
    await writeFile(join(dir2, 'b.txt'), 'b\n');
    await ok(cairn(['-r', repo, 'backup', '--host', 'skip', '--skip-if-unchanged', dir2]));
    expect(await count()).toBe(2);
  });

  it('--read-concurrency and RESTIC_READ_CONCURRENCY: accepted and checked; the repository stays valid', async () => {
    await ok(cairn(['-r', repo, 'backup', '--host', 'rc', '--read-concurrency', '1', src]));
    await ok(cairn(['-r', repo, 'backup', '--host', 'rc', '--force', src], { env: { RESTIC_READ_CONCURRENCY: '3' } }));
    const bad = await cairn(['-r', repo, 'backup', '--host', 'rc', src], { env: { RESTIC_READ_CONCURRENCY: 'many' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid value for RESTIC_READ_CONCURRENCY');
    await ok(restic(['-r', repo, 'check', '--read-data']));
  });
  it('the snapshot is stamped when the command starts, before the repository is opened (as restic)', async () => {
    // The repository's config, read while it is opened, is held at a proxy until the test has
    // seen the request waiting: a snapshot stamped at the start is no later than that moment,
    // one stamped after opening is at least 5 ms later (the gate stays closed that long).
    const s3 = await startS3();
    const proxy = await startFaultProxy(s3.endpoint, { seed: 1, rate: 0 });
    try {
      const prefix = `stamp-${process.pid}-${Date.now()}`;
      const env = { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_DEFAULT_REGION: s3.region };
      const repoURL = `s3:${proxy.url}/${s3.bucket}/${prefix}`;
      await ok(cairn(['-r', repoURL, 'init'], { env }));
      for (const [tool, run] of [
        ['cairn', cairn],
        ['restic', restic],
      ] as const) {
        const gate = proxy.gate((r) => r.method === 'GET' && new URL(r.url, 'http://x').pathname === `/${s3.bucket}/${prefix}/config`);
        const backup = run(['-r', repoURL, 'backup', '--host', tool, src], { env });
        while (gate.arrived() === 0) await new Promise((r) => setTimeout(r, 5));
        const seenAt = Date.now();
        while (Date.now() < seenAt + 5) await new Promise((r) => setTimeout(r, 1));
        gate.open();
        await ok(backup);
        const [sn] = JSON.parse((await ok(restic(['-r', repoURL, 'snapshots', '--json', '--host', tool], { env }))).stdout) as { time: string }[];
        // +1: the snapshot's sub-millisecond digits may round up.
        expect(Date.parse(sn!.time), `${tool}: config request seen at ${new Date(seenAt).toISOString()}, snapshot ${sn!.time}`).toBeLessThanOrEqual(seenAt + 1);
      }
    } finally {
      await proxy.close();
      await s3.stop();
    }
  });
});
