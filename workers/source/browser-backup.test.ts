// The webkitdirectory path (File objects + relative paths, which Node 20 has too) through the
// real archiver and back out through the streamed ZIP, checked by Python's zipfile.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initZstdNode } from '../../cli/adapters/zstd-node';
import { MemoryBackend } from '../../core/backend/mem';
import { Repository } from '../../core/repository/repository';
import { TEST_KDF } from '../../test/helpers/test-kdf';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import { lookupPath } from '../../core/walker';
import { fileContent } from '../../core/restorer/lookahead';
import { zipTree } from '../../core/restorer/zip-tree';
import { fileListSource, fileListSourceOf, knownMetadata, relativeComponents, type ListMetadata } from './file-list-source';
import { withFileName } from '../client/relative-path';
import { browserFileReader } from './file-reader';
import { excludeMatcher } from '../engine/excludes';

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function seeded(n: number, seed: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

const T0 = Date.UTC(2024, 2, 1, 12, 0, 0);
const tree: [string, Uint8Array<ArrayBuffer>][] = [
  ['Photos/readme.txt', new TextEncoder().encode('hello\n')],
  ['Photos/2024/a.bin', seeded(3 << 20, 1)],
  ['Photos/2024/b.bin', seeded(200_000, 2)],
  ['Photos/2024/deep/c.tmp', seeded(1000, 3)],
  ['Photos/empty.txt', new Uint8Array(0)],
];

function pick(entries: [string, Uint8Array<ArrayBuffer>][], mtime = T0) {
  const files = entries.map(([p, d]) => new File([d], p.split('/').pop()!, { lastModified: mtime }));
  return { files, relativePaths: entries.map(([p]) => p) };
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('webkitdirectory source', () => {
  beforeAll(() => initZstdNode());

  it('takes a file name with a backslash from File.name (Chromium writes it into webkitRelativePath as "/")', async () => {
    expect(withFileName('Picked/names/back/slash', 'back\\slash')).toBe('Picked/names/back\\slash');
    expect(withFileName('Picked/a\\b', 'a\\b')).toBe('Picked/a\\b'); // already whole
    expect(withFileName('Picked/x/y', 'plain')).toBe('Picked/x/y'); // no backslash: as given
    expect(withFileName('Picked/other', 'a\\b')).toBe('Picked/other'); // not its name: left alone
    const file = new File([new Uint8Array([1, 2, 3])], 'back\\slash', { lastModified: 1_600_000_000_000 });
    const src = fileListSource([file], ['Picked/names/back/slash']);
    const names = await src.readDir(await src.stat('/Picked/names'), () => {});
    expect(names.map((e) => e.node.name)).toEqual(['back\\slash']);
  });

  it('maps relative paths to components and refuses escapes', () => {
    expect(relativeComponents('Photos/2024/a.jpg')).toEqual(['Photos', '2024', 'a.jpg']);
    expect(relativeComponents('Photos//./a.jpg')).toEqual(['Photos', 'a.jpg']);
    expect(() => relativeComponents('a.jpg')).toThrow(/not a path inside/);
    expect(() => relativeComponents('Photos/../etc/passwd')).toThrow(/not a path inside/);
    const { files, relativePaths } = pick(tree);
    const src = fileListSource(files, relativePaths);
    expect(src.target).toBe('/Photos');
    expect(src.bytes).toBe(tree.reduce((n, [, d]) => n + d.length, 0));
    expect(() => fileListSource([files[0]!, files[1]!], ['A/x', 'B/y'])).toThrow(/more than one folder/);
  });

  it('backs up, skips unchanged files the second time, and zips back byte-exact', async () => {
    const be = new MemoryBackend();
    const repo = await Repository.init(be, 'pw', { owner: { username: 'u', hostname: 'h' }, kdf: TEST_KDF });
    const pool = inProcessPool({ saver: be, reader: browserFileReader });
    const first = fileListSource(pick(tree).files, pick(tree).relativePaths);
    const r1 = await backup(repo, first, pool, { targets: [first.target], hostname: 'browser-test' });
    expect(r1.snapshot.paths).toEqual(['/Photos']);
    expect(r1.filesRead).toBe(5);

    // Same files, one changed (new size + mtime), one added: only those two are read.
    const changed: [string, Uint8Array<ArrayBuffer>][] = [
      ...tree.slice(0, 4),
      ['Photos/empty.txt', new Uint8Array([1])],
      ['Photos/new.txt', new Uint8Array([2, 3])],
    ];
    const files = changed.map(([p, d], i) => new File([d], p.split('/').pop()!, { lastModified: i >= 4 ? T0 + 5000 : T0 }));
    const second = fileListSource(
      files,
      changed.map(([p]) => p),
    );
    const r2 = await backup(repo, second, pool, { targets: [second.target], hostname: 'browser-test' });
    expect(r2.parent).toBe(r1.id);
    expect(r2.filesRead).toBe(2);
    expect(r2.summary.filesUnmodified).toBe(4);
    expect(r2.summary.filesChanged).toBe(1);
    expect(r2.summary.filesNew).toBe(1);

    // One file streamed alone.
    const node = await lookupPath(repo, r2.snapshot.tree, ['Photos', '2024', 'a.bin']);
    const parts: Uint8Array[] = [];
    for await (const p of fileContent(repo, node!)) parts.push(p);
    expect(sha(Buffer.concat(parts))).toBe(sha(tree[1]![1]));

    // The whole snapshot as a ZIP.
    const chunks: Uint8Array[] = [];
    const res = await zipTree(repo, { kind: 'tree', tree: r2.snapshot.tree, name: '' }, (c) => void chunks.push(c.slice()));
    expect(res.errors).toEqual([]);
    expect(res.files).toBe(6);
    const dir = mkdtempSync(join(tmpdir(), 'cairn-zip-'));
    try {
      writeFileSync(join(dir, 'a.zip'), Buffer.concat(chunks));
      const py =
        'import sys,zipfile,hashlib,json;z=zipfile.ZipFile(sys.argv[1]);print(json.dumps({i.filename:hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist() if not i.is_dir()}))';
      const got = JSON.parse(execFileSync(PYTHON, ['-c', py, join(dir, 'a.zip')], { encoding: 'utf8' }));
      expect(got).toEqual(Object.fromEntries(changed.map(([p, d]) => [p, sha(d)])));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("saves a folder's first files while the sizes and times of its last ones are still coming", async () => {
    // A served list's metadata arrives in the walk's order, a file at a time, only when the
    // test lets it; the walk must not wait for the whole folder before it starts saving.
    const names = ['c.txt', 'a.txt', 'sub/z.txt', 'b.txt', 'sub/y.txt', 'd.txt'];
    const files = names.map((n, i) => new File([`file ${i}`], n.split('/').pop()!, { lastModified: T0 }));
    let order: number[] = [];
    let known = 0;
    const waiting = new Set<{ pos: number; resolve: () => void }>();
    const meta: ListMetadata = {
      start: (o) => void (order = [...o]),
      until: (pos) => (pos < known ? Promise.resolve() : new Promise<void>((resolve) => void waiting.add({ pos, resolve }))),
      size: (i) => files[i]!.size,
      lastModified: (i) => files[i]!.lastModified,
    };
    const release = () => {
      known++;
      for (const w of waiting) {
        if (w.pos >= known) continue;
        waiting.delete(w);
        w.resolve();
      }
    };
    const source = fileListSourceOf(
      names.map((n) => `Top/${n}`),
      meta,
      (i) => files[i]!,
    );
    // Asked for in the walk's order: a folder's files sorted by name, then its subfolders'.
    expect(order.map((i) => names[i])).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'sub/y.txt', 'sub/z.txt']);

    const read: string[] = [];
    const reader: typeof browserFileReader = {
      ...browserFileReader,
      open: (ref, ...rest) => (read.push((ref as File).name), browserFileReader.open(ref, ...rest)),
    };
    const be = new MemoryBackend();
    const repo = await Repository.init(be, 'pw', { owner: { username: 'u', hostname: 'h' }, kdf: TEST_KDF });
    const done = backup(repo, source, inProcessPool({ saver: be, reader }), { targets: [source.target], hostname: 'browser-test' });
    // Each file is read once its own metadata came (however slow the machine): a file whose
    // metadata has not come cannot be opened, so nothing past the first two is read here.
    for (let i = 1; i <= 2; i++) {
      release();
      await vi.waitFor(() => expect(read).toHaveLength(i), { timeout: 30_000, interval: 5 });
    }
    expect(read).toEqual(['a.txt', 'b.txt']); // the first two, with four still unknown
    while (known < names.length) release();
    const r = await done;
    expect(r.filesRead).toBe(6);
    expect(read.sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'y.txt', 'z.txt']);
  });

  it('leaves out what the exclude patterns match', async () => {
    const be = new MemoryBackend();
    const repo = await Repository.init(be, 'pw', { owner: { username: 'u', hostname: 'h' }, kdf: TEST_KDF });
    const src = fileListSource(pick(tree).files, pick(tree).relativePaths);
    const excludes = ['*.tmp', '/Photos/empty.txt'];
    const r = await backup(repo, src, inProcessPool({ saver: be, reader: browserFileReader }), {
      targets: [src.target],
      hostname: 'h',
      excludes,
      exclude: excludeMatcher(excludes),
    });
    expect(r.snapshot.excludes).toEqual(excludes);
    expect(r.filesRead).toBe(3);
    expect(await lookupPath(repo, r.snapshot.tree, ['Photos', '2024', 'deep', 'c.tmp'])).toBeUndefined();
    expect(await lookupPath(repo, r.snapshot.tree, ['Photos', 'empty.txt'])).toBeUndefined();
    expect(await lookupPath(repo, r.snapshot.tree, ['Photos', 'readme.txt'])).toBeDefined();
    expect(excludeMatcher(['  ', ''])).toBeUndefined();
    // Left out by the source itself, as a served list's are (its page then never reads their
    // sizes): the same tree, the folder of only excluded files kept empty.
    const files = pick(tree).files;
    const meta = knownMetadata(
      files.map((f) => f.size),
      files.map((f) => f.lastModified),
    );
    const bySource = fileListSourceOf(pick(tree).relativePaths, meta, (i) => files[i], excludeMatcher(excludes));
    const r2 = await backup(repo, bySource, inProcessPool({ saver: be, reader: browserFileReader }), {
      targets: [src.target],
      hostname: 'h',
      excludes,
      exclude: excludeMatcher(excludes),
    });
    expect(r2.snapshot.tree).toBe(r.snapshot.tree);
    expect(await lookupPath(repo, r2.snapshot.tree, ['Photos', '2024', 'deep'])).toMatchObject({ type: 'dir' });
  });

  it('names a folder whose tree is damaged by its path in the archive, under a named root too', async () => {
    const be = new MemoryBackend();
    const repo = await Repository.init(be, 'pw', { owner: { username: 'u', hostname: 'h' }, kdf: TEST_KDF });
    const small: [string, Uint8Array<ArrayBuffer>][] = [
      ['R/A/one.bin', seeded(500, 11)],
      ['R/A/D/two.bin', seeded(700, 12)],
      ['R/B/three.bin', seeded(900, 13)],
    ];
    const src = fileListSource(pick(small).files, pick(small).relativePaths);
    const r = await backup(repo, src, inProcessPool({ saver: be, reader: browserFileReader }), { targets: [src.target], hostname: 'h' });
    const d = await lookupPath(repo, r.snapshot.tree, ['R', 'A', 'D']);
    const loc = repo.lookupBlob('tree', d!.subtree!)!;
    const pack = await be.load({ type: 'data', name: loc.packID });
    pack[loc.offset + 20] ^= 0xff;
    await be.save({ type: 'data', name: loc.packID }, pack);
    for (const name of ['', 'snap']) {
      const fresh = await Repository.open(be, 'pw');
      const chunks: Uint8Array[] = [];
      const res = await zipTree(fresh, { kind: 'tree', tree: r.snapshot.tree, name }, (c) => void chunks.push(c.slice()));
      const at = name ? `/${name}` : '';
      expect(res.errors.map((e) => [e.path, e.code])).toEqual([[`${at}/R/A/D`, 'MAC_MISMATCH']]);
      expect(res.files).toBe(2);
    }
  });

  it('names a file whose data is damaged and still zips the others', async () => {
    const be = new MemoryBackend();
    const repo = await Repository.init(be, 'pw', { owner: { username: 'u', hostname: 'h' }, kdf: TEST_KDF });
    const small: [string, Uint8Array<ArrayBuffer>][] = [
      ['D/one.bin', seeded(5000, 9)],
      ['D/two.bin', seeded(7000, 10)],
    ];
    const src = fileListSource(pick(small).files, pick(small).relativePaths);
    const r = await backup(repo, src, inProcessPool({ saver: be, reader: browserFileReader }), { targets: [src.target], hostname: 'h' });
    // Corrupt one.bin's blob in its pack.
    const one = await lookupPath(repo, r.snapshot.tree, ['D', 'one.bin']);
    const loc = repo.lookupBlob('data', one!.content![0]!)!;
    const pack = await be.load({ type: 'data', name: loc.packID });
    pack[loc.offset + 20] ^= 0xff;
    await be.save({ type: 'data', name: loc.packID }, pack);
    const fresh = await Repository.open(be, 'pw');
    const chunks: Uint8Array[] = [];
    const res = await zipTree(fresh, { kind: 'tree', tree: r.snapshot.tree, name: '' }, (c) => void chunks.push(c.slice()));
    expect(res.files).toBe(1);
    expect(res.errors.map((e) => [e.path, e.code])).toEqual([['/D/one.bin', 'MAC_MISMATCH']]);
    const dir = mkdtempSync(join(tmpdir(), 'cairn-zip-'));
    try {
      writeFileSync(join(dir, 'a.zip'), Buffer.concat(chunks));
      const names = execFileSync(
        PYTHON,
        ['-c', 'import sys,zipfile;z=zipfile.ZipFile(sys.argv[1]);z.testzip();print(",".join(z.namelist()))', join(dir, 'a.zip')],
        { encoding: 'utf8' },
      ).trim();
      expect(names).toBe('D/,D/two.bin,CAIRN-ERRORS.txt');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
