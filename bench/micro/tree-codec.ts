// Tree and snapshot JSON codec speed (core/data), one thread, after warm-up. Prints µs per
// node for encodeTree / decodeTree of a directory of typical file nodes (plain ASCII name,
// three nanosecond times in a +02:00 zone, uid/gid/user/group, inode, device_id, size,
// links, one content ID) and µs per snapshot for encodeSnapshot / decodeSnapshot.
//   npx tsx bench/micro/tree-codec.ts [--nodes 20000] [--runs 15] [--impl path/to/data/index.ts] [--json]
// Every encode run gets freshly built nodes (new GoTime objects, nothing memoised), as an
// archiver's nodes from lstat are; every decode run decodes the same bytes into new objects.
// --impl loads another copy of core/data (e.g. an older checkout) to compare in one process.
import { pathToFileURL } from 'node:url';
import type * as Data from '../../core/data/index';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const count = Number(arg('nodes') ?? 20000);
const runs = Number(arg('runs') ?? 15);
const impl = arg('impl');
const json = process.argv.includes('--json');
const data: typeof Data = impl ? await import(pathToFileURL(impl).href) : await import('../../core/data/index');
const { GoTime, encodeTree, decodeTree, encodeSnapshot, decodeSnapshot } = data;

const ZONE = 2 * 3600;
const BASE = 1_672_531_200; // 2023-01-01
// Names and IDs as the archiver has them: flat strings (readdir results; IDs that have
// already been Map keys or came from a decoded tree). A freshly concatenated string would
// make the first character access copy it, which is not the codec's cost.
const flat = (s: string) =>
  String.fromCharCode.apply(
    null,
    Array.from(s, (c) => c.charCodeAt(0)),
  );
const hexId = (i: number) => flat((i.toString(16).padStart(8, '0') + 'c0ffee15').repeat(4));

function typicalNodes(n: number, salt: number): Data.Node[] {
  const nodes: Data.Node[] = [];
  for (let i = 0; i < n; i++) {
    const sec = BASE + i * 37 + salt;
    const ns = (i * 7919 + salt) % 1_000_000_000;
    const mtime = GoTime.fromUnix(sec, ns, ZONE);
    nodes.push({
      name: flat(`IMG_${String(i).padStart(6, '0')}.jpg`),
      type: 'file',
      mode: 0o644,
      mtime,
      atime: GoTime.fromUnix(sec + 86_400, (ns * 3) % 1_000_000_000, ZONE),
      ctime: GoTime.fromUnix(sec, ns, ZONE),
      uid: 1000,
      gid: 1000,
      user: 'alice',
      group: 'alice',
      inode: BigInt(1_000_000 + i),
      deviceId: 66307n,
      size: 1000 + ((i * 104729) % 5_000_000),
      links: 1,
      content: [hexId(i)],
    });
  }
  return nodes;
}

function typicalSnapshot(i: number): Data.Snapshot {
  const t = GoTime.fromUnix(BASE + i, 123_456_789, ZONE);
  return {
    time: t,
    parent: hexId(i + 1),
    tree: hexId(i),
    paths: ['/home/alice/Documents', '/home/alice/Pictures'],
    hostname: 'laptop',
    username: 'alice',
    uid: 1000,
    gid: 1000,
    tags: ['daily'],
    programVersion: 'cairn 0.1.0',
    summary: {
      backupStart: t,
      backupEnd: GoTime.fromUnix(BASE + i + 42, 987_654_321, ZONE),
      filesNew: 12,
      filesChanged: 3,
      filesUnmodified: 50_000,
      dirsNew: 1,
      dirsChanged: 2,
      dirsUnmodified: 800,
      dataBlobs: 15,
      treeBlobs: 3,
      dataAdded: 1_234_567,
      dataAddedPacked: 654_321,
      totalFilesProcessed: 50_015,
      totalBytesProcessed: 9_876_543_210,
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

interface Result {
  /** Wall-clock µs per item: median and best run. */
  median: number;
  min: number;
  /** CPU µs per item (all threads, GC helpers included), median: steadier on a busy machine. */
  cpu: number;
}

/** Runs `op` (setup excluded) `runs` times after 3 warm-up runs; µs per item. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each op takes its own setup's input
function measure(per: number, setup: (run: number) => unknown, op: (input: any) => unknown): Result {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = -3; r < runs; r++) {
    const input = setup(r);
    const c0 = cpuMicros();
    const t0 = performance.now();
    op(input);
    const dt = performance.now() - t0;
    const dc = cpuMicros() - c0;
    if (r >= 0) {
      wall.push((dt * 1000) / per);
      cpu.push(dc / per);
    }
  }
  return { median: median(wall), min: Math.min(...wall), cpu: median(cpu) };
}

const treeBytes = encodeTree(typicalNodes(count, 0));
const SNAPSHOTS = 2000;
const snapshots = Array.from({ length: SNAPSHOTS }, (_, i) => typicalSnapshot(i));
const snapshotBytes = snapshots.map((s) => encodeSnapshot(s));

// Sanity: what we time must round-trip.
if (Buffer.compare(Buffer.from(encodeTree(decodeTree(treeBytes).nodes)), Buffer.from(treeBytes)) !== 0) {
  throw new Error('tree does not round-trip');
}

const results = {
  encodeTree: measure(
    count,
    (r) => typicalNodes(count, r + 10),
    (nodes: Data.Node[]) => encodeTree(nodes),
  ),
  decodeTree: measure(
    count,
    () => treeBytes,
    (b: Uint8Array) => decodeTree(b),
  ),
  encodeSnapshot: measure(
    SNAPSHOTS,
    (r) => Array.from({ length: SNAPSHOTS }, (_, i) => typicalSnapshot(i + (r + 3) * 7)),
    (list: Data.Snapshot[]) => {
      for (const s of list) encodeSnapshot(s);
    },
  ),
  decodeSnapshot: measure(
    SNAPSHOTS,
    () => snapshotBytes,
    (list: Uint8Array[]) => {
      for (const b of list) decodeSnapshot(b);
    },
  ),
};

if (json) {
  console.log(JSON.stringify({ runtime: `node ${process.version}`, impl: impl ?? 'core/data', nodes: count, runs, results }));
} else {
  console.log(`${impl ?? 'core/data'}: ${count} nodes/tree (${(treeBytes.length / count).toFixed(0)} B/node), ${runs} runs`);
  console.log(`  ${''.padEnd(15)} ${'median'.padStart(7)} ${'min'.padStart(7)} ${'cpu'.padStart(7)}`);
  for (const [name, r] of Object.entries(results)) {
    const unit = name.includes('Snapshot') ? 'µs/snapshot' : 'µs/node';
    const f = (x: number) => x.toFixed(2).padStart(7);
    console.log(`  ${name.padEnd(15)} ${f(r.median)} ${f(r.min)} ${f(r.cpu)}  ${unit}`);
  }
}
