// Prune's planning on a repository of about a million blobs, made cheaply: the index lists
// `--blobs` data blobs in packs of 10 000 whose files are sparse (prune's plan only needs
// their sizes), and real snapshot trees reference every second one. Then, each in its own
// process, `cairn prune --dry-run` and `restic prune --dry-run` (neither reads a data pack):
// wall time and peak RSS from /usr/bin/time.
//   npx tsx bench/micro/prune-scale.ts [--blobs 1000000] [--dir /tmp/prune-scale] [--keep]
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { installNodePrimitives } from '../../cli/adapters/node-primitives';
import { initZstdNode } from '../../cli/adapters/zstd-node';
import { LocalBackend } from '../../cli/adapters/local-backend';
import { encodeTree, GoTime, type Node } from '../../core/data';
import { encodeSnapshot } from '../../core/data/snapshot';
import { hashID, type ID } from '../../core/id';
import type { IndexPack } from '../../core/index/index-file';
import { expectedPackSize } from '../../core/pack/reader';
import { PackerManager } from '../../core/repository/packer-manager';
import { encodeBlob } from '../../core/repository/blob-codec';
import { Repository } from '../../core/repository/repository';
import { TEST_KDF } from '../../test/helpers/test-kdf';
import type { PackedBlob } from '../../core/pack/header';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const BLOBS = Number(arg('blobs') ?? 1_000_000);
const DIR = arg('dir') ?? '/tmp/prune-scale';
const PER_PACK = 10_000;
const PER_FILE = 1000; // blob IDs per file node
const FILES_PER_DIR = 10;
const PASSWORD = 'prune-scale';
const TIME = GoTime.parse('2024-01-02T03:04:05Z');

installNodePrimitives();
await initZstdNode();
fs.rmSync(DIR, { recursive: true, force: true });
const backend = await LocalBackend.create(DIR);
const repo = await Repository.init(backend, PASSWORD, { owner: { username: 'bench', hostname: 'bench' }, kdf: TEST_KDF, version: 2 });

// Data: index entries and sparse pack files of the exact size the index implies.
const t0 = Date.now();
const used: ID[] = [];
const packs: IndexPack[] = [];
for (let p = 0; p * PER_PACK < BLOBS; p++) {
  const ids = randomBytes(PER_PACK * 32).toString('hex');
  const blobs: PackedBlob[] = [];
  for (let i = 0, offset = 0; i < PER_PACK; i++, offset += 1100) {
    const id = ids.slice(i * 64, i * 64 + 64);
    blobs.push({ type: 'data', id, offset, length: 1100, uncompressedLength: 2000 });
    if (i % 2 === 0) used.push(id);
  }
  const packID = randomBytes(32).toString('hex');
  const file = path.join(DIR, 'data', packID.slice(0, 2), packID);
  fs.writeFileSync(file, '');
  fs.truncateSync(file, expectedPackSize(blobs));
  packs.push({ id: packID, blobs });
  if (packs.length * PER_PACK >= 50_000) await repo.saveIndex(packs.splice(0));
}
if (packs.length) await repo.saveIndex(packs);

// Trees: directories of files naming PER_FILE used blobs each, under one root.
const saved: IndexPack[] = [];
const trees = new PackerManager({ key: repo.key, saver: backend, onPackSaved: (p) => void saved.push(p) });
const putTree = async (nodes: Node[]): Promise<ID> => {
  const plain = encodeTree(nodes);
  const id = await hashID(plain);
  const enc = await encodeBlob(repo.key, 'tree', plain, 2, 'auto');
  await trees.add('tree', id, enc.sealed, enc.uncompressedLength);
  return id;
};
const base = { mtime: TIME, atime: TIME, ctime: TIME, uid: 0, gid: 0 };
const dirs: Node[] = [];
for (let d = 0; d * PER_FILE * FILES_PER_DIR < used.length; d++) {
  const files: Node[] = [];
  for (let f = 0; f < FILES_PER_DIR; f++) {
    const content = used.slice((d * FILES_PER_DIR + f) * PER_FILE, (d * FILES_PER_DIR + f + 1) * PER_FILE);
    if (content.length) files.push({ ...base, name: `f${String(f).padStart(3, '0')}`, type: 'file', mode: 0o644, size: content.length * 2000, content });
  }
  dirs.push({ ...base, name: `d${String(d).padStart(5, '0')}`, type: 'dir', mode: 0x800001ed, content: null, subtree: await putTree(files) });
}
const root = await putTree(dirs);
await trees.flush();
await repo.saveIndex(saved);
await repo.saveJSON('snapshots', encodeSnapshot({ time: TIME, tree: root, paths: ['/data'], hostname: 'bench', username: 'bench' }));
console.log(
  `repository: ${BLOBS} data blobs in ${Math.ceil(BLOBS / PER_PACK)} packs, ${used.length} used, ${dirs.length + 1} trees (${((Date.now() - t0) / 1000).toFixed(1)} s to make)`,
);

const env = { ...process.env, RESTIC_PASSWORD: PASSWORD, RESTIC_CACHE_DIR: path.join(DIR, '.cache') };
const cairn = path.resolve(import.meta.dirname, '../../dist/cli/cairn.mjs');
for (const [name, cmd] of [
  ['cairn', [process.execPath, cairn]],
  ['restic', ['restic']],
] as const) {
  for (const args of [['--no-cache'], []].slice(name === 'cairn' ? 1 : 0)) {
    const r = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', ...cmd, '-r', DIR, ...args, 'prune', '--dry-run'], { env, encoding: 'utf8' });
    const [wall, rssKiB, user, sys] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
    const line = r.stdout.split('\n').find((l) => l.startsWith('total prune:'));
    console.log(
      `${`${name} ${args.join(' ')}`.padEnd(18)} prune --dry-run: ${wall!.toFixed(2)} s, CPU ${(user! + sys!).toFixed(2)} s, peak RSS ${(rssKiB! / 1024).toFixed(0)} MiB  (${line?.replace(/\s+/g, ' ') ?? r.stderr.slice(0, 300)})`,
    );
  }
}
if (!process.argv.includes('--keep')) fs.rmSync(DIR, { recursive: true, force: true });
void execFileSync;
