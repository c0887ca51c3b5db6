// A backup's first seconds, thread by thread: profiles the page, the engine worker and the
// file-saver workers at once (V8's CPU profiler over CDP; savers from when they appear) and
// prints each one's busy milliseconds per time bin on a common clock, with its top functions.
//
//   node bench/probes/timeline.mjs [dataset dir] [seconds, default 4] [bin ms, default 250]
//
// TIMELINE_SOURCE=opfs: backs up a copy of the dataset in OPFS through its directory handle
// (the folder-picker path) instead of the webkitdirectory list.
import path from 'node:path';
import { openBenchPage } from '../browser/build.mjs';
import { ROOT } from '../lib/config.mjs';

const dataset = path.resolve(process.argv[2] ?? path.join(ROOT, 'bench/data/s1/d1-mixed'));
const seconds = Number(process.argv[3] ?? 4);
const binMs = Number(process.argv[4] ?? 250);
const { page, cdp, close } = await openBenchPage('timeline', { dataset, minify: false });
const staged = process.env.TIMELINE_SOURCE === 'opfs' ? await page.evaluate(() => window.cairnBench.stage()) : undefined;

const replies = new Map();
cdp.on('Target.receivedMessageFromTarget', (e) => {
  const m = JSON.parse(e.message);
  replies.get(`${e.sessionId}:${m.id}`)?.(m);
});
let ids = 0;
async function attach(targetId) {
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: false });
  return (method, params = {}) => {
    const n = ++ids;
    const reply = new Promise((r) => replies.set(`${sessionId}:${n}`, r));
    return cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: n, method, params }) }).then(() => reply);
  };
}
const start = async (send) => {
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 500 });
  await send('Profiler.start');
};
const sessions = []; // [name, send]
const pageSession = await page.context().newCDPSession(page);
const pageSend = (method, params) => pageSession.send(method, params).then((result) => ({ result }));
await start(pageSend);
sessions.push(['page', pageSend]);
const seen = new Set();
async function attachWorkers() {
  const { targetInfos } = await cdp.send('Target.getTargets');
  for (const t of targetInfos) {
    if (t.type !== 'worker' || seen.has(t.targetId)) continue;
    seen.add(t.targetId);
    const name = t.url.includes('engine.worker')
      ? 'engine'
      : t.url.includes('file-saver')
        ? `saver${sessions.filter(([n]) => n.startsWith('saver')).length}`
        : path.basename(t.url);
    const send = await attach(t.targetId);
    await start(send);
    sessions.push([name, send]);
  }
}
await attachWorkers();
const t0 = Date.now();
const run = staged ? page.evaluate((root) => window.cairnBench.backupStaged(root), staged.root) : page.evaluate(() => window.cairnBench.backup());
while (Date.now() - t0 < seconds * 1000) {
  await attachWorkers();
  await new Promise((r) => setTimeout(r, 10));
}
const profiles = [];
for (const [name, send] of sessions) {
  const r = await send('Profiler.stop');
  if (r.result?.profile) profiles.push([name, r.result.profile]);
}
const res = await run;
console.log(`backup: ${(res.pageMs / 1000).toFixed(2)} s`);
const origin = Math.min(...profiles.filter(([n]) => n === 'page').map(([, p]) => p.startTime));
for (const [name, p] of profiles) {
  const by = new Map(p.nodes.map((n) => [n.id, n]));
  const bins = [];
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i];
    const k = by.get(p.samples[i]).callFrame.functionName || '(anonymous)';
    const b = Math.floor((t - origin) / (binMs * 1000));
    const m = (bins[b] ??= new Map());
    m.set(k, (m.get(k) ?? 0) + (p.timeDeltas[i + 1] ?? 0));
  }
  console.log(`── ${name} (from ${((p.startTime - origin) / 1000).toFixed(0)} ms)`);
  bins.forEach((m, i) => {
    const busy = [...m].filter(([k]) => k !== '(idle)').reduce((a, [, v]) => a + v, 0);
    const top = [...m]
      .filter(([k]) => k !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(0)}`)
      .join(', ');
    console.log(`${String(i * binMs).padStart(6)} ms  busy ${(busy / 1000).toFixed(0).padStart(4)}  ${top}`);
  });
}
await close();
process.exit(0);
