// Where the engine worker's time goes in one operation: backs up a dataset in Chromium (the
// bench page, unminified), then runs `zip` or `restore` of that snapshot with V8's CPU
// profiler on the engine worker (CDP Profiler), and prints the functions by self time and by
// inclusive time (builtins are charged to the JS that called them).
//
//   node bench/probes/engine-profile.mjs [dataset dir] [zip|restore|backup|unchanged] [profile.json]
//
// PROFILE_EVAL_BEFORE / PROFILE_EVAL: an expression evaluated in the engine worker before the
// operation / printed after it (e.g. counters a temporary instrumentation keeps on globalThis).
// PROFILE_CONSOLE=1: prints the page's and its workers' console output.
// PROFILE_HEAP=1: V8's sampling heap profiler instead (CDP HeapProfiler, objects the collector
// took included): the functions by bytes of JS heap they allocated during the operation.
import fs from 'node:fs';
import path from 'node:path';
import { openBenchPage } from '../browser/build.mjs';
import { ROOT } from '../lib/config.mjs';

const dataset = path.resolve(process.argv[2] ?? path.join(ROOT, 'bench/data/s1/d2-small'));
const op = process.argv[3] ?? 'zip';
const { page, cdp, close } = await openBenchPage('engine-profile', {
  dataset,
  minify: false,
  onPage: (p) => process.env.PROFILE_CONSOLE && p.on('console', (m) => console.log('console:', m.text())),
});

/** Sends CDP commands to the worker whose script URL includes `name` through the browser session. */
async function workerSession(name) {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const t = targetInfos.find((x) => x.type === 'worker' && x.url.includes(name));
  if (!t) throw new Error(`no ${name} worker target: ` + targetInfos.map((x) => `${x.type} ${x.url}`).join(', '));
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
  let id = 0;
  const replies = new Map();
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    replies.get(m.id)?.(m);
  });
  return (method, params = {}) => {
    const n = ++id;
    const reply = new Promise((r) => replies.set(n, r));
    return cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: n, method, params }) }).then(() => reply);
  };
}

const first = op === 'backup' ? undefined : await page.evaluate(() => window.cairnBench.backup());
if (op === 'unchanged') await page.setInputFiles('#src', dataset, { timeout: 0 }); // a backup takes the list
// PROFILE_WORKER=page: the page's main thread. PROFILE_WORKER=file-saver: a backup's first file-saver worker instead of the engine (savers
// start with the backup, so its first few hundred milliseconds go unprofiled), profiled for
// PROFILE_SECONDS.
const target = process.env.PROFILE_WORKER ?? 'engine.worker';
const startProfile = async (send) => {
  if (process.env.PROFILE_EVAL_BEFORE) await send('Runtime.evaluate', { expression: process.env.PROFILE_EVAL_BEFORE });
  if (HEAP) {
    await send('HeapProfiler.enable');
    await send('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    return;
  }
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 200 });
  await send('Profiler.start');
};
const HEAP = Boolean(process.env.PROFILE_HEAP);
let send;
if (target === 'page') {
  const session = await page.context().newCDPSession(page);
  send = (method, params) => session.send(method, params).then((result) => ({ result }));
  await startProfile(send);
} else if (target === 'engine.worker') {
  send = await workerSession(target);
  await startProfile(send);
}
const t0 = Date.now();
const run =
  op === 'zip'
    ? page.evaluate((s) => window.cairnBench.zip(s), first.snapshotId)
    : op === 'restore'
      ? page.evaluate((s) => window.cairnBench.restore(s, 'profiled'), first.snapshotId)
      : page.evaluate(() => window.cairnBench.backup()); // backup, or unchanged: the second backup
if (!send) {
  for (;;) {
    send = await workerSession(target).catch(() => undefined);
    if (send) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await startProfile(send);
}
// A saver ends with its backup, taking its profile along: stop after PROFILE_SECONDS (default 5).
if (target !== 'engine.worker' && target !== 'page') await new Promise((r) => setTimeout(r, 1000 * Number(process.env.PROFILE_SECONDS ?? 5)));
else await run;
const { result } = await send(HEAP ? 'HeapProfiler.stopSampling' : 'Profiler.stop');
await run;
const wall = Date.now() - t0;
if (HEAP) {
  const bySite = new Map();
  const walk = (n, stack) => {
    const k = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
    const here = [...stack, k];
    if (n.selfSize) bySite.set(here.slice(-3).join(' < '), (bySite.get(here.slice(-3).join(' < ')) ?? 0) + n.selfSize);
    for (const c of n.children ?? []) walk(c, here);
  };
  walk(result.profile.head, []);
  const total = [...bySite.values()].reduce((a, b) => a + b, 0);
  console.log(`${op}: ${(wall / 1000).toFixed(2)} s wall; ${target} allocated ~${(total / 2 ** 20).toFixed(0)} MiB of JS heap (sampled)`);
  for (const [k, v] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`  ${(v / 2 ** 20).toFixed(1).padStart(7)} MiB  ${k.split(' < ').reverse().join(' < ')}`);
  await close();
  process.exit(0);
}
if (process.env.PROFILE_EVAL)
  console.log('eval:', JSON.stringify((await send('Runtime.evaluate', { expression: process.env.PROFILE_EVAL, returnByValue: true })).result));
const prof = result.profile;
if (process.argv[4]) fs.writeFileSync(process.argv[4], JSON.stringify(prof));

const dt = new Map();
for (let i = 0; i < prof.samples.length; i++) dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const key = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
const self = new Map();
const incl = new Map();
for (const n of prof.nodes) {
  const t = dt.get(n.id) ?? 0;
  if (!t) continue;
  self.set(key(n), (self.get(key(n)) ?? 0) + t);
  const seen = new Set();
  for (let id = n.id; id !== undefined; id = parent.get(id)) {
    const k = key(byId.get(id));
    if (!seen.has(k)) {
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + t);
    }
  }
}
const busy = [...self].filter(([k]) => !k.startsWith('(idle)')).reduce((a, [, v]) => a + v, 0);
console.log(
  `${op}: ${(wall / 1000).toFixed(2)} s wall; ${target} busy ${(busy / 1e6).toFixed(2)} s (idle ${((self.get('(idle) :0') ?? 0) / 1e6).toFixed(2)} s)`,
);
const top = (m, n) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `  ${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`)
    .join('\n');
console.log('by self time:\n' + top(self, 30));
console.log('by inclusive time:\n' + top(incl, 40));
await close();
process.exit(0);
