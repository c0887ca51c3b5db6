// Which objects of 2 MiB or more each worker holds during a backup, and what holds them: takes
// a V8 heap snapshot of every worker (CDP HeapProfiler) `seconds` into a backup of a dataset in
// Chromium and prints each large node (ArrayBuffer backing stores, WebAssembly memories) with
// the first few links of its retainer chain. Found the second pack buffer in each saver.
//
//   node bench/probes/heap-snapshot.mjs [dataset dir] [seconds]
//   SNAPSHOT_RESTORE=1: during a restore of the backed-up snapshot into OPFS instead
//   SNAPSHOT_SUMMARY=n: also each worker's n largest groups of objects (by constructor)
//   SNAPSHOT_PAGE=1: the page's own heap too
import path from 'node:path';
import { openBenchPage } from '../browser/build.mjs';
import { ROOT } from '../lib/config.mjs';
const dataset = path.resolve(process.argv[2] ?? path.join(ROOT, 'bench/data/s1/d1-mixed'));
const at = Number(process.argv[3] ?? 6);
// SNAPSHOT_MIN=bytes: list nodes from this size on (default 2 MiB); SNAPSHOT_LIST=n: at most n of them, spread over the sizes (default 20).
const MIN = Number(process.env.SNAPSHOT_MIN ?? 2 << 20);
const LIST = Number(process.env.SNAPSHOT_LIST ?? 20);
const { page, cdp, close } = await openBenchPage('snap', { dataset, minify: false });
// SNAPSHOT_RESTORE=1: during a restore of the backed-up snapshot into OPFS instead.
let run = page.evaluate(() => window.cairnBench.backup());
if (process.env.SNAPSHOT_RESTORE) {
  const { snapshotId } = await run;
  run = page.evaluate((id) => window.cairnBench.restore(id, 'snapshot'), snapshotId);
}
await new Promise((r) => setTimeout(r, at * 1000));
const { targetInfos } = await cdp.send('Target.getTargets');
let id = 0;
const replies = new Map();
const chunks = new Map();
cdp.on('Target.receivedMessageFromTarget', (e) => {
  const m = JSON.parse(e.message);
  if (m.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.set(e.sessionId, (chunks.get(e.sessionId) ?? '') + m.params.chunk);
  else replies.get(m.id)?.(m);
});
for (const t of targetInfos.filter((x) => x.type === 'worker' || (process.env.SNAPSHOT_PAGE && x.type === 'page'))) {
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
  const send = (method, params = {}) => {
    const n = ++id;
    const p = new Promise((r) => replies.set(n, r));
    cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: n, method, params }) });
    return p;
  };
  await send('HeapProfiler.enable');
  await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  const snap = JSON.parse(chunks.get(sessionId));
  const m = snap.snapshot.meta;
  const nf = m.node_fields.length,
    ef = m.edge_fields.length;
  const N = snap.nodes,
    E = snap.edges,
    S = snap.strings;
  const ntypes = m.node_types[0],
    etypes = m.edge_types[0];
  const count = N.length / nf;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += N[i * nf + 4] * ef;
  }
  firstEdge[count] = E.length;
  const retainers = Array.from({ length: count }, () => []);
  for (let i = 0; i < count; i++)
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += ef) {
      const to = E[e + 2] / nf;
      const et = etypes[E[e]];
      const name = et === 'element' || et === 'hidden' ? `[${E[e + 1]}]` : S[E[e + 1]];
      if (et !== 'weak') retainers[to].push([i, name]);
    }
  const label = (i) => `${ntypes[N[i * nf]]}:${S[N[i * nf + 1]]}`.slice(0, 60);
  const total = [];
  for (let i = 0; i < count; i++) if (N[i * nf + 3] >= MIN) total.push(i);
  console.log(`== ${t.url.split('/').pop()} ${total.length} nodes ≥ ${(MIN / 2 ** 20).toFixed(3)} MiB`);
  const listed = total.sort((a, b) => N[b * nf + 3] - N[a * nf + 3]);
  // With many, a sample spread over the sizes.
  const step = Math.max(1, Math.floor(listed.length / LIST));
  for (const i of listed.filter((_, k) => k % step === 0).slice(0, LIST)) {
    const chain = [];
    let cur = i;
    for (let d = 0; d < 6 && retainers[cur].length; d++) {
      const [r, en] = retainers[cur][0];
      chain.push(`${en} ← ${label(r)}`);
      cur = r;
    }
    console.log(`  ${(N[i * nf + 3] / 2 ** 20).toFixed(1)} MiB ${label(i)}\n      ${chain.join('\n      ')}`);
  }
  // SNAPSHOT_SUMMARY=n: also the n largest groups of objects by constructor (count, summed self size).
  if (process.env.SNAPSHOT_SUMMARY) {
    const groups = new Map();
    for (let i = 0; i < count; i++) {
      const k = label(i);
      const g = groups.get(k) ?? { n: 0, bytes: 0 };
      g.n++;
      g.bytes += N[i * nf + 3];
      groups.set(k, g);
    }
    const top = [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(process.env.SNAPSHOT_SUMMARY));
    for (const [k, g] of top) console.log(`    ${(g.bytes / 2 ** 20).toFixed(1).padStart(7)} MiB ${String(g.n).padStart(8)} × ${k}`);
  }
  chunks.delete(sessionId);
}
await run;
await close();
process.exit(0);
