// Writes a synthetic repository of many small blobs and many snapshots directly, with the
// engine's own writers (Repository, Packer, sealInto, encodeTree, encodeIndex, encodeSnapshot),
// without backing up any file: the big-repo bench section opens, lists, searches and restores
// from it (bench/big-repo.mjs).
//   npx tsx bench/big-repo/generate.ts --repo DIR [--snapshots 1000] [--top 10] [--leaves 15]
//     [--files 20] [--blobs 32.5] [--password P] [--seed 1]
// Layout of every snapshot: /data/top-TT/dir-DDD/file-FFFF.txt, top × leaves leaf folders of
// `files` files each. Snapshot 0 gives every file its own content; snapshot i > 0 gives new
// content to every file of the leaf folders d with d % 10 == i % 10 (a tenth of the tree), so
// consecutive snapshots share 90 % of their trees. A file content of k blobs (k from 1 to
// 2·blobs, avg `blobs`) is k distinct 16-byte blobs: data blobs ≈ files·(1 + (snapshots−1)/10)·blobs.
// Content is a function of the seed (IDs repeat from run to run); IVs are random as always.
// Prints one JSON line: counts, bytes, seconds.
import { installNodePrimitives } from '../../cli/adapters/node-primitives';
import { initZstdNode } from '../../cli/adapters/zstd-node';
import { LocalBackend } from '../../cli/adapters/local-backend';
import { Repository } from '../../core/repository/repository';
import { TEST_KDF } from '../../test/helpers/test-kdf';
import { prepareBlob } from '../../core/repository/blob-codec';
import { Packer, type FinishedPack } from '../../core/pack/packer';
import { EXTENSION, sealInto } from '../../core/crypto/seal';
import { hashID, type ID } from '../../core/id';
import { TreeBuilder } from '../../core/data/tree';
import type { Node } from '../../core/data/node';
import { ModeDir } from '../../core/data/file-mode';
import { GoTime } from '../../core/data/go-time';
import { encodeSnapshot } from '../../core/data/snapshot';
import type { IndexPack } from '../../core/index/index-file';
import type { BlobType } from '../../core/pack/header';

function arg(name: string, dflt?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? process.argv[i + 1] : dflt;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

const opts = {
  repo: arg('repo'),
  password: arg('password', 'cairn-bench-password'),
  snapshots: Number(arg('snapshots', '1000')),
  top: Number(arg('top', '10')),
  leaves: Number(arg('leaves', '15')),
  files: Number(arg('files', '20')),
  blobs: Number(arg('blobs', '32.5')),
  seed: Number(arg('seed', '1')),
};

/** Target sizes: restic's smallest data pack (4 MiB) and its index-file fill mark (50 000 blobs). */
const DATA_PACK = 4 << 20;
const TREE_PACK = 16 << 20;
const INDEX_BLOBS = 50_000;
const BLOB_BYTES = 16;
const BASE_TIME = 1_767_225_600; // 2026-01-01T00:00:00Z

/** One blob type's open pack; full packs are stored and listed for the next index file. */
class PackStream {
  #packer: Packer;
  constructor(
    readonly type: BlobType,
    readonly target: number,
    readonly out: Writer,
  ) {
    // Room for the blobs, the header (37 bytes per 48-byte blob) and the last blob past the target.
    this.#packer = new Packer(new Uint8Array(2 * target + (1 << 20)));
  }

  async add(id: ID, payload: Uint8Array, uncompressedLength: number): Promise<void> {
    const region = this.#packer.reserve(this.type, id, payload.length + EXTENSION, uncompressedLength);
    await sealInto(this.out.repo.key, payload, region);
    if (this.#packer.size >= this.target || this.#packer.headerFull()) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#packer.count === 0) return;
    const done: FinishedPack = await this.#packer.finish(this.out.repo.key);
    await this.out.repo.backend.save({ type: 'data', name: done.id }, done.bytes);
    this.out.packBytes += done.bytes.length;
    this.out.packs++;
    this.#packer = new Packer(done.buffer);
    await this.out.listed({ id: done.id, blobs: done.entries.blobs() });
  }
}

class Writer {
  packs = 0;
  packBytes = 0;
  indexFiles = 0;
  dataBlobs = 0;
  treeBlobs = 0;
  #pending: IndexPack[] = [];
  #pendingBlobs = 0;
  readonly data: PackStream;
  readonly trees: PackStream;
  constructor(readonly repo: Repository) {
    this.data = new PackStream('data', DATA_PACK, this);
    this.trees = new PackStream('tree', TREE_PACK, this);
  }

  async listed(p: IndexPack): Promise<void> {
    this.#pending.push(p);
    this.#pendingBlobs += p.blobs.length;
    if (this.#pendingBlobs >= INDEX_BLOBS) await this.flushIndex();
  }

  async flushIndex(): Promise<void> {
    if (this.#pending.length === 0) return;
    await this.repo.saveIndex(this.#pending);
    this.indexFiles++;
    this.#pending = [];
    this.#pendingBlobs = 0;
  }

  async dataBlob(plain: Uint8Array): Promise<ID> {
    const id = await hashID(plain);
    await this.data.add(id, plain, 0);
    this.dataBlobs++;
    return id;
  }

  /** Trees are compressed in v2 repositories, as restic does. */
  async treeBlob(plain: Uint8Array): Promise<ID> {
    const id = await hashID(plain);
    const { payload, uncompressedLength } = prepareBlob('tree', plain, this.repo.version, 'auto');
    await this.trees.add(id, payload, uncompressedLength);
    this.treeBlobs++;
    return id;
  }

  async finish(): Promise<void> {
    await this.data.flush();
    await this.trees.flush();
    await this.flushIndex();
  }
}

/** A small seeded PRNG (mulberry32): the same contents on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface FileState {
  name: string;
  content: ID[];
  size: number;
  mtime: GoTime;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

async function main(): Promise<void> {
  installNodePrimitives();
  await initZstdNode();
  const t0 = process.hrtime.bigint();
  const backend = await LocalBackend.create(opts.repo);
  const repo = await Repository.init(backend, opts.password, { owner: { username: 'bench', hostname: 'bench' }, kdf: TEST_KDF, version: 2 });
  const w = new Writer(repo);
  const rnd = prng(opts.seed);
  const plain = new Uint8Array(BLOB_BYTES);
  const view = new DataView(plain.buffer);
  let contentNo = 0;

  const newContent = async (): Promise<{ content: ID[]; size: number }> => {
    const k = 1 + Math.floor(rnd() * (2 * opts.blobs - 1));
    const content: ID[] = [];
    const c = contentNo++;
    for (let b = 0; b < k; b++) {
      view.setUint32(0, c);
      view.setUint32(4, b);
      view.setUint32(8, (rnd() * 2 ** 32) >>> 0);
      view.setUint32(12, opts.seed);
      content.push(await w.dataBlob(plain));
    }
    return { content, size: k * BLOB_BYTES };
  };

  const nLeaves = opts.top * opts.leaves;
  const leaves: FileState[][] = [];
  const leafTree: ID[] = [];
  const topTree: ID[] = [];
  const dirNode = (name: string, subtree: ID, t: GoTime): Node => ({
    name,
    type: 'dir',
    mode: (ModeDir | 0o755) >>> 0,
    mtime: t,
    atime: t,
    ctime: t,
    uid: 1000,
    gid: 1000,
    user: 'bench',
    group: 'bench',
    content: null,
    subtree,
  });
  const fileNode = (f: FileState, inode: number): Node => ({
    name: f.name,
    type: 'file',
    mode: 0o644,
    mtime: f.mtime,
    atime: f.mtime,
    ctime: f.mtime,
    uid: 1000,
    gid: 1000,
    user: 'bench',
    group: 'bench',
    inode: BigInt(inode),
    links: 1,
    size: f.size,
    content: f.content,
  });
  const tb = new TreeBuilder();
  const saveLeaf = async (d: number): Promise<void> => {
    leaves[d]!.forEach((f, i) => tb.add(fileNode(f, d * opts.files + i + 1)));
    leafTree[d] = await w.treeBlob(tb.finish());
  };
  const saveTop = async (t: number, time: GoTime): Promise<void> => {
    for (let l = 0; l < opts.leaves; l++) tb.add(dirNode(`dir-${pad(l, 3)}`, leafTree[t * opts.leaves + l]!, time));
    topTree[t] = await w.treeBlob(tb.finish());
  };

  let parent: ID | undefined;
  for (let s = 0; s < opts.snapshots; s++) {
    const time = GoTime.fromUnix(BASE_TIME + s * 3600, 0);
    const changedTops = new Set<number>();
    for (let d = 0; d < nLeaves; d++) {
      if (s > 0 && d % 10 !== s % 10) continue;
      const files: FileState[] = [];
      for (let f = 0; f < opts.files; f++) files.push({ name: `file-${pad(d * opts.files + f, 5)}.txt`, ...(await newContent()), mtime: time });
      leaves[d] = files;
      await saveLeaf(d);
      changedTops.add(Math.floor(d / opts.leaves));
    }
    for (const t of changedTops) await saveTop(t, time);
    for (let t = 0; t < opts.top; t++) tb.add(dirNode(`top-${pad(t, 2)}`, topTree[t]!, time));
    const dataTree = await w.treeBlob(tb.finish());
    tb.add(dirNode('data', dataTree, time));
    const root = await w.treeBlob(tb.finish());
    // Snapshots refer to trees that must be stored first: flush the open packs before each.
    if (s === opts.snapshots - 1 || s % 50 === 49) await w.finish();
    pending.push({ time, tree: root });
    if (s === opts.snapshots - 1 || s % 50 === 49) {
      for (const p of pending.splice(0))
        parent = await repo.saveJSON(
          'snapshots',
          encodeSnapshot({
            time: p.time,
            tree: p.tree,
            parent,
            paths: ['/data'],
            hostname: 'bench',
            username: 'bench',
            programVersion: 'cairn big-repo generator',
          }),
        );
    }
    if (s % 50 === 49) process.stderr.write(`[generate] ${s + 1}/${opts.snapshots} snapshots, ${w.dataBlobs + w.treeBlobs} blobs\n`);
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage();
  console.log(
    JSON.stringify({
      ...opts,
      blobsPerFile: opts.blobs,
      contents: contentNo,
      dataBlobs: w.dataBlobs,
      treeBlobs: w.treeBlobs,
      totalBlobs: w.dataBlobs + w.treeBlobs,
      packs: w.packs,
      packBytes: w.packBytes,
      indexFiles: w.indexFiles,
      filesPerSnapshot: nLeaves * opts.files,
      wallS: seconds,
      cpuS: (cpu.user + cpu.system) / 1e6,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

const pending: { time: GoTime; tree: ID }[] = [];
await main();
