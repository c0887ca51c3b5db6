// Where the browser's memory goes during a backup: runs one backup of a dataset in Chromium
// (the bench page, a real on-disk profile so OPFS is on disk as for a user) and takes Chromium
// memory-infra dumps (CDP Tracing.requestMemoryDump) before and during it, printing each
// process's allocators (MiB): partition_alloc/array_buffer (ArrayBuffers: pack and job
// buffers), malloc, v8 (JS heaps; v8/workers for the workers), blink_gc.
//
//   node bench/probes/memory-dump.mjs [dataset dir] [seconds,…]
//   e.g. node bench/probes/memory-dump.mjs bench/data/s1/d2-small 10,40
//   MEMDUMP_GC=1 also collects garbage in every page and worker and dumps again (what is live).
//   MEMDUMP_GC_EACH=1 collects in one page or worker at a time and dumps after each (whose garbage it was).
//   MEMDUMP_AFTER=1 dumps once more when the backup is over, before and after collecting.
//   MEMDUMP_S3=1: the repository in the radosgw of CAIRN_S3_ENV (scripts/s3/start.sh, CORS *).
//   MEMDUMP_ZIP=1 / MEMDUMP_RESTORE=1 dump during a ZIP download / a restore of the backed-up
//   snapshot instead.

import fs from 'node:fs';
import path from 'node:path';
import { openBenchPage, s3LocationFromEnv } from '../browser/build.mjs';
import { ROOT } from '../lib/config.mjs';

const dataset = path.resolve(process.argv[2] ?? path.join(ROOT, 'bench/data/s1/d1-mixed'));
const times = (process.argv[3] ?? '10,30').split(',').map(Number);
const loc = process.env.MEMDUMP_S3 ? s3LocationFromEnv('memdump') : undefined;
const { browser, page, profile, cdp, server, close } = await openBenchPage('memdump', { dataset: process.env.MEMDUMP_STAGED ? undefined : dataset, loc });

async function dump(label) {
  const events = [];
  const collect = (e) => events.push(...e.value);
  cdp.on('Tracing.dataCollected', collect);
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: ['disabled-by-default-memory-infra'], memoryDumpConfig: { triggers: [] } },
    transferMode: 'ReportEvents',
  });
  await cdp.send('Tracing.requestMemoryDump', { levelOfDetail: 'detailed' }).catch(() => {});
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', collect);
  const names = {};
  for (const e of events) if (e.ph === 'M' && e.name === 'process_name') names[e.pid] = e.args.name;
  console.log(`=== ${label}`);
  if (process.env.MEMDUMP_SMAPS) smaps();
  for (const e of events) {
    const a = e.ph === 'v' ? e.args?.dumps?.allocators : undefined;
    if (!a) continue;
    const mib = (k) => Math.round(parseInt(a[k]?.attrs?.size?.value ?? '0', 16) / 1048576);
    const keys = ['partition_alloc/partitions/array_buffer', 'partition_alloc/partitions/buffer', 'malloc', 'v8/main', 'v8/workers', 'blink_gc'];
    const row = Object.fromEntries(keys.map((k) => [k.replace('partition_alloc/partitions/', ''), mib(k)]).filter(([, v]) => v > 0));
    if (Object.keys(row).length) console.log(`  ${names[e.pid] ?? e.pid}`, JSON.stringify(row));
    // MEMDUMP_ALL=N: every allocator node of N MiB or more (the detailed tree), for digging in.
    if (process.env.MEMDUMP_ALL && Object.keys(row).length) {
      const min = Number(process.env.MEMDUMP_ALL);
      for (const k of Object.keys(a).sort()) if (mib(k) >= min) console.log(`      ${k} ${mib(k)}`);
    }
  }
}

/** MEMDUMP_SMAPS=1: each renderer's PSS and its mappings of 4 MiB or more, from /proc. */
function smaps() {
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmd;
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes('--type=renderer') || !cmd.includes(profile)) continue;
    const lines = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n');
    let head = '',
      total = 0;
    const big = [];
    for (const l of lines) {
      if (/^[0-9a-f]+-[0-9a-f]+ /.test(l)) head = l;
      else if (l.startsWith('Pss:')) {
        const kb = Number(l.split(/\s+/)[1]);
        total += kb;
        if (kb >= 4096) big.push(`${Math.round(kb / 1024)} MiB ${head.split(/\s+/).slice(5).join(' ') || '[anon]'} ${head.split(' ')[0]}`);
      }
    }
    console.log(`  renderer ${pid} PSS ${Math.round(total / 1024)} MiB`);
    for (const b of big) console.log(`      ${b}`);
  }
}

/** Collects garbage in every page and worker; with `each`, calls it after each one (its URL). */
async function collectGarbage(each) {
  let id = 0;
  const replies = new Map();
  const onMessage = (e) => {
    const m = JSON.parse(e.message);
    replies.get(m.id)?.(m);
  };
  cdp.on('Target.receivedMessageFromTarget', onMessage);
  const { targetInfos } = await cdp.send('Target.getTargets');
  for (const t of targetInfos.filter((x) => x.type === 'worker' || x.type === 'page')) {
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
    const n = ++id;
    const reply = new Promise((r) => replies.set(n, r));
    await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: n, method: 'HeapProfiler.collectGarbage' }) });
    await reply;
    await cdp.send('Target.detachFromTarget', { sessionId });
    if (each) await each(`${t.type} ${t.url.split('/').pop()}`);
  }
  cdp.off('Target.receivedMessageFromTarget', onMessage);
}

// MEMDUMP_STAGED=1: the folder-picker path (the dataset mirrored into OPFS from a page of its
// own, then backed up through its directory handle). MEMDUMP_AGAIN=1: dump during a second,
// unchanged backup (the first runs undumped).
const staged = Boolean(process.env.MEMDUMP_STAGED);
if (staged) {
  const stager = await browser.contexts()[0].newPage();
  await stager.goto(server.url + '/');
  await stager.waitForFunction(() => document.title === 'cairn bench ready', null, { timeout: 60_000 });
  await stager.setInputFiles('#src', dataset, { timeout: 0 });
  await stager.evaluate(() => window.cairnBench.stage());
  await stager.close();
}
let backup = () =>
  staged ? page.evaluate((root) => window.cairnBench.backupStaged(root), path.basename(dataset)) : page.evaluate(() => window.cairnBench.backup());
// MEMDUMP_ZIP=1 / MEMDUMP_RESTORE=1: dump during a ZIP download of the snapshot, or its restore
// into OPFS, instead (the backup runs undumped).
if (process.env.MEMDUMP_ZIP || process.env.MEMDUMP_RESTORE) {
  const { snapshotId } = await backup();
  backup = process.env.MEMDUMP_ZIP
    ? () => page.evaluate((id) => window.cairnBench.zip(id), snapshotId)
    : () => page.evaluate((id) => window.cairnBench.restore(id, 'memdump'), snapshotId);
}
if (process.env.MEMDUMP_AGAIN) {
  const t = Date.now();
  await backup();
  console.log(`first backup took ${((Date.now() - t) / 1000).toFixed(1)} s`);
  if (!staged) await page.setInputFiles('#src', dataset, { timeout: 0 });
}
await dump('files picked, before the backup');
const t0 = Date.now();
const run = backup();
for (const at of times) {
  while (Date.now() - t0 < at * 1000) await new Promise((r) => setTimeout(r, 200));
  await dump(`${at} s into the backup`);
  if (process.env.MEMDUMP_GC_EACH) await collectGarbage((what) => dump(`${at} s, after collecting garbage in the ${what}`));
  else if (process.env.MEMDUMP_GC) {
    await collectGarbage();
    await dump(`${at} s, after collecting garbage`);
  }
}
await run;
console.log(`backup took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
// MEMDUMP_AFTER=1: dump once the backup is over, before and after collecting garbage (what it left).
if (process.env.MEMDUMP_AFTER) {
  await dump('after the backup');
  // MEMDUMP_AFTER_WAIT=s: dumps once more that many seconds later, before collecting (what went by itself).
  if (process.env.MEMDUMP_AFTER_WAIT) {
    await new Promise((r) => setTimeout(r, Number(process.env.MEMDUMP_AFTER_WAIT) * 1000));
    await dump(`${process.env.MEMDUMP_AFTER_WAIT} s after the backup`);
  }
  await collectGarbage(process.env.MEMDUMP_GC_EACH && ((what) => dump(`after the backup, garbage collected in the ${what}`)));
  await new Promise((r) => setTimeout(r, 1000));
  await dump('after the backup, garbage collected');
}
await close();
