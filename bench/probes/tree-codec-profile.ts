// Profiling harness for core/data's tree codec (the numbers to quote come from
// bench/micro/tree-codec.ts). Encodes freshly built typical nodes and decodes the result in
// a loop, long enough for a CPU profile:
//   npx esbuild bench/probes/tree-codec-profile.ts --bundle --platform=node --format=esm --outfile=/tmp/treeprof.mjs
//   node --cpu-prof /tmp/treeprof.mjs [encode|decode] [rounds]
import { decodeTree, encodeTree, GoTime, type Node } from '../../core/data';

const mode = process.argv[2] ?? 'both';
const rounds = Number(process.argv[3] ?? 20);
const COUNT = 20000;
const id = (i: number) => (i.toString(16).padStart(8, '0') + 'c0ffee15').repeat(4);

function nodes(salt: number): Node[] {
  return Array.from({ length: COUNT }, (_, i) => {
    const t = GoTime.fromUnix(1_672_531_200 + i + salt, (i * 7919) % 1e9, 7200);
    return {
      name: `IMG_${String(i).padStart(6, '0')}.jpg`,
      type: 'file',
      mode: 0o644,
      mtime: t,
      atime: GoTime.fromUnix(1_672_617_600 + i, 0, 7200),
      ctime: t,
      uid: 1000,
      gid: 1000,
      user: 'alice',
      group: 'alice',
      inode: BigInt(1_000_000 + i),
      deviceId: 66307n,
      size: 1000 + i,
      links: 1,
      content: [id(i)],
    };
  });
}

const bytes = encodeTree(nodes(0));
let encodeMs = 0;
let decodeMs = 0;
for (let r = 0; r < rounds; r++) {
  if (mode !== 'decode') {
    const input = nodes(r);
    const t = performance.now();
    encodeTree(input);
    encodeMs += performance.now() - t;
  }
  if (mode !== 'encode') {
    const t = performance.now();
    decodeTree(bytes);
    decodeMs += performance.now() - t;
  }
}
const per = (ms: number) => ((ms * 1000) / rounds / COUNT).toFixed(2);
console.log(`encodeTree ${per(encodeMs)} µs/node, decodeTree ${per(decodeMs)} µs/node (wall, ${rounds} rounds incl. warm-up)`);
