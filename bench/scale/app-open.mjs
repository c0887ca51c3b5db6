#!/usr/bin/env node
// Opening the scale repository (./make-repo.mjs) in the built app, as a new user does: a fresh
// Chromium profile, the bucket form, the password, then the snapshot list (cold); then a
// reload and the password again (warm: the offline cache holds what the first open kept).
// Each run also records when the background cache fill finished (its engine progress event,
// if the build has one), what the profile then stores, a name search across every snapshot
// that finds nothing (so walks everything), when browsing the newest snapshot's root worked,
// and the Chromium processes' peak PSS; after the warm open, another search that finds nothing
// (the offline cache's outlines read afresh from the profile), and one that finds a file in each
// snapshot.
//   CAIRN_S3_ENV=/tmp/dev-s3/env.json node bench/scale/app-open.mjs [runs=3]
// Env: SCALE_FILES (200000), SCALE_SNAPSHOTS (2; more: ./make-repo.mjs makes them, 1 % apart), SCALE_NO_BUILD=1 (serve dist/app as it is), SCALE_PORT (4191),
// SCALE_PROFILE=<file.cpuprofile> (the engine worker's CPU profile of the first run's cold open and
// browse; SCALE_PROFILE_PHASE=warm: of its warm ones; on a kept profile: of the warm open, browse and first search),
// BENCH_CHROMIUM (/usr/bin/chromium), SCALE_OUT (a JSON file for the results),
// SCALE_FILL_TIMEOUT_S (600: how long the offline fill may take; ~7 s a snapshot of 200 000 files),
// SCALE_CONSOLE=<file> (the page's and its workers' console lines, every run's),
// SCALE_COLD_ONLY=1 (each run is the cold open alone, on a fresh profile),
// SCALE_KEEP_PROFILE=<dir> (the Chromium profile is kept there: the first run fills it as above,
// every later run, of this or another build served on the same port, starts Chromium on it and
// measures the warm steps alone — a warm open, the newest snapshot's root, the two searches).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fillBucketForm, launchProfile, serveApp } from './app-serve.mjs';
import { makeScaleRepo } from './make-repo.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.argv[2] ?? 3);
const FILES = Number(process.env.SCALE_FILES ?? 200_000);
const PORT = Number(process.env.SCALE_PORT ?? 4191);
/** Written into a kept profile once its offline cache is filled. */
const FILLED = 'cairn-bench-filled';

/** PSS of every process of this Chromium profile (KiB). */
function profilePss(userDir) {
  let kib = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(userDir)) continue;
      const m = /^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (m) kib += Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return kib;
}

/** CDP commands to the engine worker (attached through the browser session, as bench/probes/engine-profile.mjs). */
async function engineSession(cdp) {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const t = targetInfos.find((x) => x.type === 'worker' && x.url.includes('engine.worker'));
  if (!t) throw new Error('no engine worker');
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

const listed = (page) => page.getByTestId('snapshot-list').locator('tbody tr');

/** Seconds from the unlock's start (the click on "Open repository") to the snapshot list on screen, by the page's marks. */
async function timedOpen(page, fill) {
  await fill();
  const t0 = await page.evaluate(() => performance.now());
  await page.getByRole('button', { name: 'Open repository' }).click();
  await listed(page).nth(1).waitFor({ timeout: 300_000 });
  // The app's own marks, in seconds after its unlock started: the password handed to the
  // engine (unlocked: the engine answered; listed: the list's answer; shown: the list on screen).
  const marks = await page.evaluate((t0) => {
    const start = performance.getEntriesByName('cairn:unlock-start').filter((e) => e.startTime >= t0)[0]?.startTime ?? NaN;
    const at = (n) =>
      performance
        .getEntriesByName(n)
        .filter((e) => e.startTime >= start)
        .map((e) => +((e.startTime - start) / 1000).toFixed(3))[0];
    return { unlocked: at('cairn:unlocked'), listed: at('cairn:snapshots-listed'), shown: at('cairn:snapshot-list-fresh') };
  }, t0);
  console.error(`  open: ${JSON.stringify(marks)}`);
  return marks.shown;
}

/** Seconds from now until the engine reports the offline cache complete (undefined if this build does not say). */
async function cacheFilled(page, timeoutMs = Number(process.env.SCALE_FILL_TIMEOUT_S ?? 600) * 1000) {
  const t0 = Date.now();
  const done = page.getByTestId('offline-cache-done');
  if ((await page.getByTestId('offline-cache').count()) === 0 && (await done.count()) === 0) return undefined;
  await done.waitFor({ state: 'attached', timeout: timeoutMs });
  return (Date.now() - t0) / 1000;
}

/** Opens the newest snapshot from the list and waits for its root listing: seconds. */
async function browseNewest(page) {
  const t0 = Date.now();
  await listed(page)
    .first()
    .getByRole('link', { name: /Open snapshot/ })
    .click();
  await page.getByTestId('tree-list').locator('tbody tr').first().waitFor({ timeout: 300_000 });
  const s = (Date.now() - t0) / 1000;
  await page.goBack();
  await listed(page).nth(1).waitFor();
  return s;
}

/** What the profile's storage holds (the offline cache and the app's records), in MiB. */
async function storedMiB(page) {
  return page.evaluate(async () => Math.round(((await navigator.storage.estimate()).usage ?? 0) / 2 ** 20));
}

/**
 * Seconds for a name search across every snapshot from the Search view: `query` names nothing
 * in the tree, so the search walks every folder of every snapshot (each tree once).
 */
async function searchAll(page, query = 'no-such-name-in-any-snapshot', found = 'Nothing named like') {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click();
  await page.getByLabel('File or folder name').fill(query);
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('status').filter({ hasText: found }).waitFor({ timeout: 600_000 });
  const s = (Date.now() - t0) / 1000;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Snapshots' }).click(); // the warm open starts from the list
  return s;
}

/** Starts the engine worker's CPU profile; the returned function stops it and writes it to `file`. */
async function startProfile(ctx, page, file) {
  const send = await engineSession(await ctx.newCDPSession(page));
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 500 });
  await send('Profiler.start');
  return async () => fs.writeFileSync(file, JSON.stringify((await send('Profiler.stop')).result.profile));
}

/** SCALE_CONSOLE: the page's and its workers' console lines, with the time they came. */
function logConsole(page) {
  const log = process.env.SCALE_CONSOLE;
  if (log) page.on('console', (m) => fs.appendFileSync(log, `${Date.now()} ${m.text()}\n`));
}

/** SCALE_CONSOLE: the page's marks, on the same clock as the console lines. */
async function logMarks(page) {
  const log = process.env.SCALE_CONSOLE;
  if (!log) return;
  const marks = await page.evaluate(() =>
    performance.getEntriesByType('mark').map((e) => `${Math.round(performance.timeOrigin + e.startTime)} mark ${e.name}`),
  );
  fs.appendFileSync(log, marks.join('\n') + '\n');
}

/** The warm steps alone, on a profile a run before has filled (SCALE_KEEP_PROFILE). */
async function warmRun(app, loc, userDir) {
  // Without its service worker the page is the build served now, not the one a run before cached.
  fs.rmSync(path.join(userDir, 'Default', 'Service Worker'), { recursive: true, force: true });
  const { ctx } = await launchProfile('scale-open-', userDir);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, profilePss(userDir))), 500);
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    logConsole(page);
    await page.goto(app.url + '#/snapshots');
    await page.getByRole('heading', { name: /^Unlock/ }).waitFor();
    const stopProfile = process.env.SCALE_PROFILE ? await startProfile(ctx, page, process.env.SCALE_PROFILE) : undefined;
    const warm = await timedOpen(page, () => page.getByLabel('Password', { exact: true }).fill(loc.password));
    const browseWarm = await browseNewest(page);
    const searchWarm = await searchAll(page, 'nothing-by-this-name-either');
    await stopProfile?.();
    const searchHits = await searchAll(page, 'notiz-12340.', ' found — ');
    await logMarks(page);
    return { warm, browseWarm, searchWarm, searchHits, peakPssMiB: Math.round(peak / 1024) };
  } finally {
    clearInterval(sampler);
    await ctx.close();
  }
}

async function oneRun(app, loc, i) {
  const kept = process.env.SCALE_KEEP_PROFILE;
  if (kept && fs.existsSync(path.join(kept, FILLED))) return warmRun(app, loc, kept);
  const { ctx, userDir } = await launchProfile('scale-open-', kept);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, profilePss(userDir))), 500);
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    logConsole(page);
    await page.goto(app.url + '#/snapshots');
    await page.getByLabel('Open an existing one').check();
    const profile = i === 0 && process.env.SCALE_PROFILE;
    const warmProfile = process.env.SCALE_PROFILE_PHASE === 'warm';
    let stopProfile = profile && !warmProfile ? await startProfile(ctx, page, profile) : undefined;
    const cold = await timedOpen(page, async () => {
      await fillBucketForm(page, loc);
      await page.getByLabel(/Remember the bucket keys/).check();
      await page.getByLabel('Password', { exact: true }).fill(loc.password);
    });
    if (process.env.SCALE_COLD_ONLY) {
      await stopProfile?.();
      await logMarks(page);
      return { cold, peakPssMiB: Math.round(peak / 1024) };
    }
    const browseCold = await browseNewest(page);
    const fill = await cacheFilled(page);
    const stored = await storedMiB(page);
    const search = await searchAll(page);
    await stopProfile?.();
    await page.reload();
    await page.getByRole('heading', { name: /^Unlock/ }).waitFor();
    stopProfile = profile && warmProfile ? await startProfile(ctx, page, profile) : undefined;
    const warm = await timedOpen(page, () => page.getByLabel('Password', { exact: true }).fill(loc.password));
    const browseWarm = await browseNewest(page);
    await stopProfile?.();
    const searchWarm = await searchAll(page, 'nothing-by-this-name-either');
    // One file (home-tree.mjs names file 12340 notiz-12340.<ext>) in a folder that a 1 % change touches in
    // nearly every snapshot: a hit per version of the folder, each read for its node.
    const searchHits = await searchAll(page, 'notiz-12340.', ' found — ');
    if (kept && fill !== undefined) fs.writeFileSync(path.join(kept, FILLED), '');
    return { cold, browseCold, fill, storedMiB: stored, search, warm, browseWarm, searchWarm, searchHits, peakPssMiB: Math.round(peak / 1024) };
  } finally {
    clearInterval(sampler);
    await ctx.close();
    if (!kept) fs.rmSync(userDir, { recursive: true, force: true });
  }
}

const SNAPSHOTS = Number(process.env.SCALE_SNAPSHOTS ?? 2);
const loc = makeScaleRepo(FILES, SNAPSHOTS);
const app = await serveApp(PORT);
const runs = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const r = await oneRun(app, loc, i);
    runs.push(r);
    console.log(`run ${i + 1}: ${JSON.stringify(r)}`);
  }
} finally {
  app.stop();
}
const med = (k) => {
  const v = runs
    .map((r) => r[k])
    .filter((x) => typeof x === 'number')
    .sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : undefined;
};
const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const summary = {
  git,
  files: FILES,
  snapshots: SNAPSHOTS,
  repository: loc.restic,
  runs,
  median: Object.fromEntries(
    ['cold', 'warm', 'fill', 'storedMiB', 'search', 'searchWarm', 'searchHits', 'browseCold', 'browseWarm', 'peakPssMiB'].map((k) => [k, med(k)]),
  ),
};
console.log(`median: ${JSON.stringify(summary.median)}`);
if (process.env.SCALE_OUT) fs.writeFileSync(process.env.SCALE_OUT, JSON.stringify(summary, null, 2));
