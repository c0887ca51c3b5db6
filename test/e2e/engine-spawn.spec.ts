// The engine's workers started by the page (workers/spawn.ts, workers/client/worker-host.ts;
// Firefox under automation hangs starting a worker inside a worker): a hosted worker talks to
// its engine directly over the port it was given, and when a hosted worker fails — its script
// is missing, or it throws — the engine gets the error event, as it would from a
// worker of its own, so a pool rejects instead of waiting forever.

import { scryptSync } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { digests, sampleTree } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';
import { openHarness } from './harness/open';

const PASSWORD = 'engine e2e password';

test('a worker the page starts for the engine answers over its port, and its failures reach the engine', async ({ page }) => {
  await openHarness(page);
  const r = await page.evaluate(() => window.harness.spawnThroughHost('hosted password', 'hosted salt'));
  const want = scryptSync('hosted password', 'hosted salt', 32, { N: 1024, r: 8, p: 1 }).toString('hex');
  expect(r.scrypt).toEqual({ message: want });
  expect(r.missing).toHaveProperty('error');
  expect(r.throws).toHaveProperty('error');
  // Chromium 156 reports a module worker's exception as a bare Event, without the message, so
  // what reaches the engine is the host's stand-in text; it must still be something to show.
  expect((r.throws as { error: string }).error).toMatch(/\S/);
  expect(r.afterStop).toBe('timeout');
});

test('the engine asks the page to start its scrypt, file-saver and decode workers', async ({ page }) => {
  // Every Worker the page constructs, by name. Were the host handoff broken, the engine would
  // start these itself (nested), which Chromium allows and Firefox under automation hangs on.
  await page.addInitScript(() => {
    const names: string[] = [];
    const Base = window.Worker;
    window.Worker = class extends Base {
      constructor(url: string | URL, opts?: WorkerOptions) {
        super(url, opts);
        names.push(opts?.name ?? '');
      }
    };
    (window as unknown as { startedNames: string[] }).startedNames = names;
  });
  await openHarness(page);
  const tree = sampleTree(5);
  await writeOpfsTree(page, ['src-spawn', 'Docs'], tree);
  const r = await page.evaluate(async (pw) => {
    const h = window.harness;
    await h.engine.createRepository({ kind: 'opfs', name: 'e2e-spawn' }, pw);
    const b = await h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src-spawn', 'Docs']) } });
    const restored = await h.engine.restoreToFolder(b.snapshotId, [], await h.opfsDir(['restore-spawn']));
    return {
      errors: restored.errors,
      files: await h.digestOpfs(['restore-spawn', 'Docs']),
      names: (window as unknown as { startedNames: string[] }).startedNames,
    };
  }, PASSWORD);
  expect(r.errors).toEqual([]);
  expect(r.files).toEqual(digests(tree));
  expect(r.names).toContain('cairn-engine');
  expect(r.names).toContain('cairn-kdf');
  expect(r.names).toContain('cairn-file-saver');
  expect(r.names).toContain('cairn-decode');
});

test('file savers stand by once a repository is open: a backup takes them, new ones follow, closing ends them', async ({ page }) => {
  // The file-saver Workers the page constructs and terminates, in order.
  await page.addInitScript(() => {
    const log: string[] = [];
    const Base = window.Worker;
    window.Worker = class extends Base {
      readonly saver: boolean;
      constructor(url: string | URL, opts?: WorkerOptions) {
        super(url, opts);
        this.saver = opts?.name === 'cairn-file-saver';
        if (this.saver) log.push('start');
      }
      override terminate() {
        if (this.saver) log.push('end');
        super.terminate();
      }
    };
    (window as unknown as { saverLog: string[] }).saverLog = log;
  });
  await openHarness(page);
  const tree = sampleTree(6);
  await writeOpfsTree(page, ['src-standby', 'Docs'], tree);
  const savers = await page.evaluate(async (pw) => {
    const h = window.harness;
    await h.engine.createRepository({ kind: 'opfs', name: 'e2e-standby' }, pw);
    return (await h.engine.stats()).saverWorkers;
  }, PASSWORD);
  expect(savers).toBeGreaterThan(0);
  const log = () => page.evaluate(() => [...(window as unknown as { saverLog: string[] }).saverLog]);
  const started = async () => (await log()).filter((e) => e === 'start').length;
  // Standing by before any backup asked for them.
  await expect.poll(started).toBe(savers);
  const r = await page.evaluate(async () => {
    const h = window.harness;
    const b = await h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src-standby', 'Docs']) } });
    const during = (window as unknown as { saverLog: string[] }).saverLog.filter((e) => e === 'start').length;
    const restored = await h.engine.restoreToFolder(b.snapshotId, [], await h.opfsDir(['restore-standby']));
    return { during, errors: restored.errors, files: await h.digestOpfs(['restore-standby', 'Docs']) };
  });
  expect(r.errors).toEqual([]);
  expect(r.files).toEqual(digests(tree));
  expect(r.during).toBe(savers); // the backup started none of its own
  // The backup's savers ended with it; a new set stands by for the next one.
  await expect.poll(started).toBe(2 * savers);
  await page.evaluate(() => window.harness.engine.closeRepository());
  await expect.poll(async () => (await log()).filter((e) => e === 'end').length).toBe(2 * savers);
});
