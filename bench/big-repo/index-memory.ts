// Memory of the loaded index: opens a repository, loads every index file into the master
// index, and prints process.memoryUsage() before and after (and after a full collection when
// run with --expose-gc), with bytes per blob. With --heap-snapshot FILE also writes a V8 heap
// snapshot after loading (open it in Chrome DevTools, Memory tab).
//   node --expose-gc --import tsx bench/big-repo/index-memory.ts --repo DIR [--password P] [--heap-snapshot FILE]
import v8 from 'node:v8';
import { installNodePrimitives } from '../../cli/adapters/node-primitives';
import { initZstdNode } from '../../cli/adapters/zstd-node';
import { LocalBackend } from '../../cli/adapters/local-backend';
import { Repository } from '../../core/repository/repository';

function arg(name: string, dflt?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}

const repoDir = arg('repo');
if (!repoDir) throw new Error('--repo is required');
const gc = (globalThis as { gc?: () => void }).gc;
const usage = () => {
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
};

installNodePrimitives();
await initZstdNode();
const repo = await Repository.open(await LocalBackend.open(repoDir), arg('password', 'cairn-bench-password')!);
const before = usage();
const t0 = process.hrtime.bigint();
await repo.loadIndex();
const loadS = Number(process.hrtime.bigint() - t0) / 1e9;
const after = usage();
const peakRss = process.resourceUsage().maxRSS * 1024;
const blobs = repo.index.size;
const per = (k: keyof typeof after) => +((after[k] - before[k]) / blobs).toFixed(1);
const snap = arg('heap-snapshot');
if (snap) v8.writeHeapSnapshot(snap);
console.log(
  JSON.stringify({
    blobs,
    packs: repo.index.packCount,
    indexFiles: repo.indexFiles.size,
    indexBytes: repo.index.byteSize,
    indexBytesPerBlob: +(repo.index.byteSize / blobs).toFixed(1),
    loadS: +loadS.toFixed(2),
    before,
    after,
    peakRss,
    bytesPerBlob: { heapUsed: per('heapUsed'), arrayBuffers: per('arrayBuffers'), rss: per('rss'), peakRss: +((peakRss - before.rss) / blobs).toFixed(1) },
  }),
);
