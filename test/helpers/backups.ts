// Small in-memory repositories with several backups (each backup stores its own data and tree
// packs), for the tests of repair, rewrite and copy: known files, known packs, seeded bytes.

import { createCipheriv, createHash } from 'node:crypto';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import type { Backend } from '../../core/backend/backend';
import type { ID } from '../../core/id';
import type { Repository } from '../../core/repository/repository';
import { lookupPath, walk } from '../../core/walker';
import { memRepo } from './mem-repo';
import { MemSource, type MemDir } from './mem-source';

/** Seeded incompressible bytes. */
export function seededBytes(label: string, size: number): Uint8Array {
  const key = createHash('sha256').update(`backups:${label}`).digest();
  const c = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  return new Uint8Array(Buffer.concat([c.update(Buffer.alloc(size)), c.final()]));
}

export const text = (s: string) => new TextEncoder().encode(s);

/** What the three backups of `threeBackups` hold under /d. */
export const GENERATIONS: MemDir[] = [
  { 'one.txt': { data: text('one\n'.repeat(50)) } },
  { 'one.txt': { data: text('one\n'.repeat(50)) }, 'two.bin': { data: seededBytes('two', 40_000) } },
  {
    'one.txt': { data: text('one\n'.repeat(50)) },
    'two.bin': { data: seededBytes('two', 40_000) },
    sub: { 'three.bin': { data: seededBytes('three', 30_000) } },
  },
];

export interface Backups {
  repo: Repository;
  backend: Backend;
  /** Snapshot IDs, oldest first. */
  snapshots: ID[];
}

/** A repository with one backup of /d per generation (tags g0, g1, g2; host h). */
export async function threeBackups(opts: { repo?: Repository; backend?: Backend } = {}): Promise<Backups> {
  const made = opts.repo ? { repo: opts.repo, backend: opts.repo.backend } : await memRepo({ backend: opts.backend });
  const snapshots: ID[] = [];
  for (const [i, gen] of GENERATIONS.entries()) {
    const src = new MemSource({ d: gen });
    const r = await backup(made.repo, src, inProcessPool({ saver: made.backend, reader: src }), { hostname: 'h', targets: ['/d'], tags: [`g${i}`] });
    if (!r.id) throw new Error('backup saved no snapshot');
    snapshots.push(r.id);
  }
  await made.repo.loadIndex();
  return { ...made, snapshots };
}

/** The pack holding the first chunk of the file at `path` ("d/two.bin") in snapshot `tree`. */
export async function packOf(repo: Repository, tree: ID, path: string): Promise<{ packID: ID; offset: number; length: number; blob: ID }> {
  const node = await lookupPath(repo, tree, path.split('/'));
  const blob = node!.content![0]!;
  const loc = repo.lookupBlob('data', blob)!;
  return { packID: loc.packID, offset: loc.offset, length: loc.length, blob };
}

/** path → SHA-256 of the file's bytes (read blob by blob) for every file below `tree`. */
export async function fileHashes(repo: Repository, tree: ID): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const { path, node } of walk(repo, tree, { anyName: true })) {
    if (node.type !== 'file') continue;
    const h = createHash('sha256');
    for (const id of node.content ?? []) h.update(await repo.loadBlob('data', id));
    out.set(path.join('/'), h.digest('hex'));
  }
  return out;
}

export function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Replaces a stored object's bytes (the mem backend is write-once per name otherwise). */
export async function damage(be: Backend, h: Parameters<Backend['load']>[0], f: (b: Uint8Array) => Uint8Array): Promise<void> {
  const b = f(await be.load(h));
  await be.remove(h);
  await be.save(h, b);
}
