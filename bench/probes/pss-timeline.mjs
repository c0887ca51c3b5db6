// The page process's memory over time during a restore (or ZIP) of a backed-up dataset: backs
// the dataset up in Chromium (the bench page), then restores the snapshot into OPFS, sampling
// the largest renderer's PSS (smaps_rollup) every second, and prints the series with what the
// restore's progress said then. Shows when the peak comes, not just how high. Linux only.
//
//   node bench/probes/pss-timeline.mjs [dataset dir] [every s, default 1]
//   PSS_ZIP=1: during a ZIP download instead; PSS_BACKUP=1: during the backup itself.
//   PSS_IDLE=s: first samples that many seconds after the backup with nothing running.
//   PSS_HEAP=1: also each worker's JS heap, used/committed MiB (CDP Runtime.getHeapUsage).
//   PSS_S3=1: the repository in the radosgw of CAIRN_S3_ENV (scripts/s3/start.sh) instead of OPFS.
import fs from 'node:fs';
import path from 'node:path';
import { openBenchPage, s3LocationFromEnv } from '../browser/build.mjs';
import { ROOT } from '../lib/config.mjs';

const dataset = path.resolve(process.argv[2] ?? path.join(ROOT, 'bench/data/s1/d2-small'));
const every = Number(process.argv[3] ?? 1) * 1000;
const loc = process.env.PSS_S3 ? s3LocationFromEnv('pss') : undefined;
const { page, profile, cdp, close } = await openBenchPage('pss', { dataset, loc });
const pids = () =>
  fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((p) => {
      try {
        const c = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
        return c.includes('--type=renderer') && c.includes(profile);
      } catch {
        return false;
      }
    });
const pss = () =>
  Math.max(
    ...pids().map((p) => {
      try {
        return Math.round(Number(/Pss:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))[1]) / 1024);
      } catch {
        return 0;
      }
    }),
  );
/** PSS_HEAP=1: each worker's JS heap as `name used/committed` (MiB), through CDP sessions attached once. */
const heaps = await (async () => {
  if (!process.env.PSS_HEAP) return async () => '';
  let id = 0;
  const replies = new Map();
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    replies.get(m.id)?.(m.result);
  });
  const sessions = new Map();
  const mib = (b) => Math.round(b / 1048576);
  return async () => {
    const { targetInfos } = await cdp.send('Target.getTargets');
    const out = [];
    for (const t of targetInfos.filter((x) => x.type === 'worker')) {
      if (!sessions.has(t.targetId)) sessions.set(t.targetId, (await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false })).sessionId);
      const n = ++id;
      const reply = new Promise((r) => replies.set(n, r));
      await cdp
        .send('Target.sendMessageToTarget', { sessionId: sessions.get(t.targetId), message: JSON.stringify({ id: n, method: 'Runtime.getHeapUsage' }) })
        .catch(() => {});
      const u = await Promise.race([reply, new Promise((r) => setTimeout(r, 500))]);
      if (u) out.push(`${t.url.split('/').pop().split('-')[0]} ${mib(u.usedSize)}/${mib(u.totalSize)}`);
    }
    return out.join('  ');
  };
})();
let t0 = 0;
let peak = 0;
const sampled = async (run) => {
  t0 = Date.now();
  const iv = setInterval(async () => {
    const v = pss();
    peak = Math.max(peak, v);
    const at = ((Date.now() - t0) / 1000).toFixed(0).padStart(4);
    const h = await heaps();
    console.log(`${at} s  ${String(v).padStart(4)} MiB${h ? '  ' + h : ''}`);
  }, every);
  try {
    return await run();
  } finally {
    clearInterval(iv);
  }
};
const backup = () => page.evaluate(() => window.cairnBench.backup());
if (process.env.PSS_BACKUP) await sampled(backup);
else {
  const { snapshotId } = await backup();
  console.log(`backed up; page process ${pss()} MiB`);
  // PSS_IDLE=s: samples that long with nothing running first (what the backup left, and how fast it goes).
  if (process.env.PSS_IDLE) await sampled(() => new Promise((r) => setTimeout(r, Number(process.env.PSS_IDLE) * 1000)));
  await sampled(() =>
    process.env.PSS_ZIP
      ? page.evaluate((id) => window.cairnBench.zip(id), snapshotId)
      : page.evaluate((id) => window.cairnBench.restore(id, 'pss'), snapshotId),
  );
}
console.log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s; peak ${peak} MiB`);
await close();
