// What a tab closed in the middle of writing a pack into an OPFS repository leaves: a temp file
// `<pack>-tmp-…` next to where the pack would go, which no listing shows and nothing else
// removes (it would hold its share of the origin's quota for good). The next backup, taking up
// the dead engine's journal (workers/engine/pack-journal.ts), removes it; a temp file no dead
// engine's note names is left alone.

import { expect, test } from '@playwright/test';
import { sampleTree } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';
import { openHarness } from './harness/open';

const PASSWORD = 'engine e2e password';
const PACK = 'ab' + 'c'.repeat(62);
const OTHER = 'ab' + 'd'.repeat(62);

test('the next backup removes the temp file of a pack a dead tab was writing, and no other', async ({ page }) => {
  await openHarness(page);
  const tree = sampleTree(4);
  await writeOpfsTree(page, ['src', 'Left'], tree);
  const info = await page.evaluate((pw) => window.harness.engine.createRepository({ kind: 'opfs', name: 'e2e-leftover' }, pw), PASSWORD);

  // The dead tab's traces: half a pack in a temp file and its note in the engine's database
  // (written through the engine's own db module; engine 7 holds no Web Lock: gone). Plus a temp
  // file no note names.
  await page.evaluate(
    async ({ repo, pack, other }) => {
      const dir = await window.harness.opfsDir(['cairn-repos', 'e2e-leftover', 'data', 'ab'], false);
      for (const name of [`${pack}-tmp-0123abcd`, `${other}-tmp-4567ef01`]) {
        const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
        await w.write(new Uint8Array(1 << 20).fill(7));
        await w.close();
      }
      await window.harness.putPendingPack(repo, '7', pack);
    },
    { repo: info.id, pack: PACK, other: OTHER },
  );
  const names = () =>
    page.evaluate(async () => {
      const dir = await window.harness.opfsDir(['cairn-repos', 'e2e-leftover', 'data', 'ab'], false);
      const out: string[] = [];
      for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) out.push(name);
      return out.sort();
    });
  expect(await names()).toEqual([`${PACK}-tmp-0123abcd`, `${OTHER}-tmp-4567ef01`]);

  const r = await page.evaluate(async () => {
    const h = window.harness;
    return h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Left']) } });
  });
  expect(r.summary.filesNew).toBe(tree.length);
  expect(r.warnings).toEqual([]);
  // The noted pack never made it (no file under its name): nothing adopted, its temp file gone.
  const left = (await names()).filter((n) => n.includes('-tmp-'));
  expect(left).toEqual([`${OTHER}-tmp-4567ef01`]);
  // The note is gone too: a third backup has nothing to take up.
  const notes = await page.evaluate((repo) => window.harness.pendingPacks(repo), info.id);
  expect(notes).toEqual([]);
});
