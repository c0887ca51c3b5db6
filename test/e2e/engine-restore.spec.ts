// The browser's restore into a folder (OPFS here, written through sync access handles): a file
// whose last blob is damaged is named and not left in the folder, half-written or under a
// temporary name, while the rest arrives; a folder restore takes restic's include/exclude
// patterns, relative to the folder as `restic restore snapshot:folder` takes them.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createCipheriv, createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './harness/s3';
import { openHarness, restic } from './harness/open';
import { initEngine } from '../helpers/engine';
import { openS3Backend, parseS3Spec } from '../../cli/adapters/s3';
import { Repository } from '../../core/repository/repository';
import { findSnapshot } from '../../core/repository/snapshots';
import { lookupPath } from '../../core/walker';
import { FIXED_CHUNKER_ARGS, FIXED_CHUNKER_ENV } from '../helpers/fixed-chunker';

const PASSWORD = 'restore into a folder';
const random = (seed: number, n: number) => createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test('a damaged file is named and not left in the folder; a folder restore takes include/exclude patterns', async ({ page, s3 }) => {
  const work = mkdtempSync(join(tmpdir(), 'cairn-e2e-restore-'));
  try {
    const src = join(work, 'src');
    mkdirSync(join(src, 'docs', 'drafts'), { recursive: true });
    const files: Record<string, Buffer> = {
      'big.bin': random(1, 3 << 20), // several blobs: written under a temporary name in OPFS
      'whole.bin': random(2, 3 << 20),
      'docs/a.txt': Buffer.from('a\n'),
      'docs/b.tmp': Buffer.from('tmp\n'),
      'docs/drafts/c.txt': Buffer.from('c\n'),
    };
    for (const [p, b] of Object.entries(files)) writeFileSync(join(src, p), b);
    const env = s3.resticEnv(PASSWORD);
    // A fixed polynomial: big.bin is cut into the same several blobs in every run.
    restic(['-r', s3.repository, 'init', ...FIXED_CHUNKER_ARGS], { ...env, ...FIXED_CHUNKER_ENV });
    restic(['-r', s3.repository, 'backup', src], env);

    // Flip a byte in big.bin's last blob.
    await initEngine();
    const backend = await openS3Backend(parseS3Spec(s3.repository, env));
    const repo = await Repository.open(backend, PASSWORD);
    await repo.loadIndex();
    const { snapshot } = await findSnapshot(repo, 'latest');
    const comps = src.split('/').filter(Boolean);
    const content = (await lookupPath(repo, snapshot.tree, [...comps, 'big.bin']))!.content!;
    expect(content.length).toBeGreaterThan(1);
    const loc = repo.index.lookup('data', content[content.length - 1]!)!;
    const h = { type: 'data' as const, name: loc.packID };
    const pack = await backend.load(h);
    pack[loc.offset + 64]! ^= 1;
    await backend.remove(h);
    await backend.save(h, pack);

    await openHarness(page);
    const got = await page.evaluate(
      async ({ loc, pw, comps }) => {
        const h = window.harness;
        await h.engine.openRepository(loc, pw);
        const [snap] = await h.engine.listSnapshots();
        const all = await h.engine.restoreToFolder(snap!.id, [], await h.opfsDir(['all']));
        const docs = await h.engine.restoreToFolder(snap!.id, [...comps, 'docs'], await h.opfsDir(['docs']), undefined, { exclude: ['*.tmp', '/drafts'] });
        const only = await h.engine.restoreToFolder(snap!.id, [...comps, 'docs'], await h.opfsDir(['only']), undefined, { include: ['c.txt'] });
        return {
          all: { errors: all.errors, files: await h.digestOpfs(['all', ...comps]) },
          docs: { errors: docs.errors, files: await h.digestOpfs(['docs']) },
          only: { errors: only.errors, files: await h.digestOpfs(['only']) },
        };
      },
      { loc: s3.location, pw: PASSWORD, comps },
    );
    expect(got.all.errors.map((e) => [e.path, e.code])).toEqual([[`/${comps.join('/')}/big.bin`, 'MAC_MISMATCH']]);
    const expected = Object.fromEntries(Object.entries(files).map(([p, b]) => [p, sha(b)]));
    delete expected['big.bin'];
    expect(got.all.files).toEqual(expected); // no big.bin, and no big.bin.cairn-partial
    expect(got.docs.errors).toEqual([]);
    expect(got.docs.files).toEqual({ 'docs/a.txt': sha(files['docs/a.txt']!) });
    expect(got.only).toEqual({ errors: [], files: { 'docs/drafts/c.txt': sha(files['docs/drafts/c.txt']!) } });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
