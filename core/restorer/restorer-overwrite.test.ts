// The restorer over a target that already holds things: restic 0.18's --overwrite modes with
// its partial-file handling, --dry-run, --delete, --verify; and files that fail mid-way.

import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { MemSource, T0, type MemDir } from '../../test/helpers/mem-source';
import { FullMemTarget } from '../../test/helpers/mem-target';
import { writeHostileSnapshot } from '../../test/helpers/hostile-repo';
import type { Backend } from '../backend/backend';
import { backup } from '../archiver/archiver';
import { inProcessPool } from '../archiver/pool';
import { parsePattern } from '../filter/pattern';
import { loadSnapshot } from '../repository/snapshots';
import type { Repository } from '../repository/repository';
import { restore, type RestoreItem, type RestoreOptions } from './restorer';

const text = (s: string) => new TextEncoder().encode(s);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const big = seededBytes(7, 3_000_000); // several blobs
const SNAP_NS = BigInt(T0) * 1_000_000n;

const tree = (): MemDir => ({
  d: {
    'a.txt': { data: text('alpha\n') },
    'b.txt': { data: text('bravo\n') },
    'big.bin': { data: big },
    sub: { 'c.txt': { data: text('charlie\n') } },
    link: { link: 'a.txt' },
  },
});

async function fixture() {
  const { repo, backend } = await memRepo();
  const src = new MemSource(tree());
  const r = await backup(repo, src, inProcessPool({ saver: repo.backend, reader: src }), { hostname: 'h', targets: ['/d'] });
  return { repo, backend, tree: r.snapshot.tree };
}

async function run(repo: Repository, treeID: string, target: FullMemTarget, opts: RestoreOptions = {}) {
  const items: RestoreItem[] = [];
  const result = await restore(repo, treeID, target, { ...opts, onItem: (i) => items.push(i) });
  const action = (p: string) => items.find((i) => i.path === p)?.action;
  return { result, items, action };
}

/** The blobs of big.bin, in file order: offset and plain length. */
async function bigBlobs(repo: Repository) {
  const out: { offset: number; length: number }[] = [];
  let offset = 0;
  for (const id of await contentOf(repo)) {
    const length = repo.index.plainSize('data', id)!;
    out.push({ offset, length });
    offset += length;
  }
  return out;
}

async function contentOf(repo: Repository): Promise<string[]> {
  const { lookupPath } = await import('../walker');
  const snap = await loadSnapshot(repo, (await repo.listIDs('snapshots'))[0]!);
  return (await lookupPath(repo, snap.tree, ['d', 'big.bin']))!.content!;
}

async function flipInBlob(repo: Repository, backend: Backend, id: string) {
  await repo.loadIndex();
  const loc = repo.lookupBlob('data', id)!;
  const h = { type: 'data' as const, name: loc.packID };
  const bytes = await backend.load(h);
  bytes[loc.offset + 20]! ^= 0x40;
  await backend.remove(h);
  await backend.save(h, bytes);
}

describe('restoring over what the target holds', () => {
  beforeAll(initEngine);

  it('always: an intact file is read and left unchanged; a changed one gets only its blobs that differ, in place', async () => {
    const { repo, tree: t } = await fixture();
    const target = new FullMemTarget();
    await run(repo, t, target);
    const blobs = await bigBlobs(repo);
    expect(blobs.length).toBeGreaterThanOrEqual(3);
    target.files.get('d/big.bin')!.data.fill(0, blobs[1]!.offset + 10, blobs[1]!.offset + 20); // one blob damaged
    target.file('d/b.txt', 'BRAVO\n');
    target.written.clear();
    target.events.length = 0;
    const { result, action } = await run(repo, t, target);
    expect(result.errors).toEqual([]);
    expect(sha(target.files.get('d/big.bin')!.data)).toBe(sha(big));
    expect(target.text('d/b.txt')).toBe('bravo\n');
    expect([action('/d/big.bin'), action('/d/b.txt'), action('/d/a.txt'), action('/d/sub/c.txt')]).toEqual(['updated', 'updated', 'unchanged', 'unchanged']);
    expect(target.written.get('d/big.bin')).toBe(blobs[1]!.length);
    expect(target.events).toContain('create d/big.bin keep');
    expect(target.written.has('d/a.txt')).toBe(false);
    expect(result.skippedFiles).toBe(2);
    expect(target.meta.has('d/a.txt')).toBe(true); // metadata set again
  });

  it('if-changed: a file of the right size and time is taken as it is, unread; any other is compared', async () => {
    const { repo, tree: t } = await fixture();
    const target = new FullMemTarget();
    await run(repo, t, target);
    target.file('d/b.txt', 'BRAVO\n', target.files.get('d/b.txt')!.mtimeNs); // same size and time: trusted
    target.file('d/a.txt', 'ALPHA\n', SNAP_NS + 5_000_000_000n);
    target.events.length = 0;
    const { action } = await run(repo, t, target, { overwrite: 'if-changed' });
    expect(target.events).not.toContain('read d/b.txt');
    expect(target.text('d/b.txt')).toBe('BRAVO\n');
    expect(action('/d/b.txt')).toBe('unchanged');
    expect(target.events).toContain('read d/a.txt');
    expect(target.text('d/a.txt')).toBe('alpha\n');
  });

  it('if-newer replaces only what is older than the snapshot; never replaces nothing that exists', async () => {
    const { repo, tree: t } = await fixture();
    const target = new FullMemTarget();
    target.file('d/a.txt', 'newer\n', SNAP_NS + 10n ** 12n);
    target.file('d/b.txt', 'older\n', SNAP_NS - 10n ** 12n);
    await run(repo, t, target, { overwrite: 'if-newer' });
    expect([target.text('d/a.txt'), target.text('d/b.txt'), target.text('d/sub/c.txt')]).toEqual(['newer\n', 'bravo\n', 'charlie\n']);

    const never = new FullMemTarget();
    never.file('d/a.txt', 'mine\n', SNAP_NS - 10n ** 12n);
    const { result, action } = await run(repo, t, never, { overwrite: 'never' });
    expect(never.text('d/a.txt')).toBe('mine\n');
    expect(never.meta.has('d/a.txt')).toBe(false);
    expect(action('/d/a.txt')).toBe('unchanged');
    expect(never.text('d/b.txt')).toBe('bravo\n');
    expect(result.skippedFiles).toBe(1);
  });

  it('dry-run writes nothing and reports what a restore would do', async () => {
    const { repo, tree: t } = await fixture();
    const target = new FullMemTarget();
    target.file('d/a.txt', 'alpha\n');
    target.file('d/b.txt', 'BRAVO\n');
    const { result, action, items } = await run(repo, t, target, { dryRun: true });
    expect(target.events.filter((e) => !e.startsWith('read '))).toEqual([]);
    expect([action('/d/a.txt'), action('/d/b.txt'), action('/d/big.bin'), action('/d/link'), action('/d/sub')]).toEqual([
      'unchanged',
      'updated',
      'restored',
      'restored',
      'restored',
    ]);
    expect(items.find((i) => i.path === '/d/big.bin')!.size).toBe(big.length);
    expect(result.errors).toEqual([]);
  });

  it('delete removes what the snapshot does not have, only where the selection restores, deepest first', async () => {
    const { repo, tree: t } = await fixture();
    const target = new FullMemTarget();
    target.file('d/stray.txt', 'x');
    target.file('d/sub/old/deeper.txt', 'y');
    target.file('elsewhere.txt', 'z');
    const { items } = await run(repo, t, target, { delete: true, include: [parsePattern('/d/sub')] });
    expect(target.files.has('d/stray.txt')).toBe(true); // outside the selection
    expect(target.files.has('d/sub/old/deeper.txt')).toBe(false);
    expect(items.filter((i) => i.action === 'deleted').map((i) => i.path)).toEqual(['/d/sub/old/deeper.txt', '/d/sub/old']);

    const dry = new FullMemTarget();
    dry.file('d/stray.txt', 'x');
    const r = await run(repo, t, dry, { delete: true, dryRun: true });
    expect(dry.files.has('d/stray.txt')).toBe(true);
    expect(r.result.deleted).toBe(1);
    await run(repo, t, dry, { delete: true });
    expect(dry.files.has('d/stray.txt')).toBe(false);
    expect(dry.files.has('elsewhere.txt')).toBe(false);
  });

  it('delete deletes nothing when a name in the snapshot was refused', async () => {
    const { repo } = await memRepo();
    const id = await writeHostileSnapshot(repo, [
      { name: 'ok.txt', type: 'file', data: 'ok' },
      { name: '../evil', type: 'file', data: 'e' },
    ]);
    const target = new FullMemTarget();
    target.file('stray.txt', 'x');
    const { result } = await run(repo, (await loadSnapshot(repo, id)).tree, target, { delete: true });
    expect(result.errors.map((e) => e.code)).toEqual(['INVALID_NAME']);
    expect(target.files.has('stray.txt')).toBe(true);
  });

  it('verify reads every written file back and names one whose bytes on the target differ', async () => {
    const { repo, tree: t } = await fixture();
    const good = await run(repo, t, new FullMemTarget(), { verify: true });
    expect(good.result.errors).toEqual([]);
    expect(good.result.verified).toBe(4); // a, b, big, c
    const lying = new FullMemTarget();
    lying.corruptWrites = 'd/big.bin';
    const bad = await run(repo, t, lying, { verify: true });
    expect(bad.result.errors).toEqual([
      { path: '/d/big.bin', code: 'HASH_MISMATCH', message: expect.stringMatching(/unexpected content in \/d\/big\.bin, starting at offset \d+/) },
    ]);
  });
});

describe('a file that fails', () => {
  beforeAll(initEngine);

  it('is removed when a later blob fails after earlier ones were written, and named', async () => {
    const { repo, backend, tree: t } = await fixture();
    const content = await contentOf(repo);
    await flipInBlob(repo, backend, content[content.length - 1]!);
    const target = new FullMemTarget();
    const { result } = await run(repo, t, target);
    expect(result.errors.map((e) => [e.path, e.code])).toEqual([['/d/big.bin', 'MAC_MISMATCH']]);
    expect(target.files.has('d/big.bin')).toBe(false);
    expect(target.events).toContain('abort d/big.bin');
    expect(target.events).toContain('remove d/big.bin');
    expect(target.text('d/a.txt')).toBe('alpha\n');
  });

  it('is reported when its blob fails and its creation would have failed too (the error was lost)', async () => {
    const { repo, backend, tree: t } = await fixture();
    await repo.loadIndex();
    await flipInBlob(repo, backend, sha(text('bravo\n')));
    const target = new FullMemTarget();
    target.failCreate = (p) => p === 'd/b.txt';
    const { result } = await run(repo, t, target);
    expect(result.errors.map((e) => [e.path, e.code])).toEqual([['/d/b.txt', 'MAC_MISMATCH']]);
    expect(result.files).toBe(3);
  });

  it('that existed before and was never opened is left as it was', async () => {
    const { repo, backend, tree: t } = await fixture();
    await repo.loadIndex();
    await flipInBlob(repo, backend, sha(text('bravo\n')));
    const target = new FullMemTarget();
    target.file('d/b.txt', 'BRAVO\n');
    const { result } = await run(repo, t, target);
    expect(result.errors.map((e) => e.path)).toEqual(['/d/b.txt']);
    expect(target.text('d/b.txt')).toBe('BRAVO\n');
  });
});
