import { beforeAll, describe, expect, it } from 'vitest';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, memRepo, TEST_PASSWORD } from '../../test/helpers/mem-repo';
import type { Backend } from '../backend/backend';
import { hashID, type ID } from '../id';
import type { IndexPack } from '../index/index-file';
import { adoptPacks, journaledSaver } from './adopt';
import { encodeBlob } from './blob-codec';
import { PackerManager } from './packer-manager';
import { Repository } from './repository';

/** Stores `blobs` as data blobs in packs of ~`packSize`, as a backup would, but writes no index. */
async function storeUnindexed(repo: Repository, backend: Backend, blobs: Uint8Array[], packSize: number, noted: ID[] = []) {
  const saved: IndexPack[] = [];
  const saver = journaledSaver(backend, {
    storing: async (pack) => {
      // The note comes first: the pack is not there yet.
      await expect(backend.stat({ type: 'data', name: pack })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      noted.push(pack);
    },
  });
  const pm = new PackerManager({ key: repo.key, saver, packSize, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
  for (const plain of blobs) {
    const sealed = await encodeBlob(repo.key, 'data', plain, repo.version, 'auto');
    await pm.add('data', await hashID(plain), sealed.sealed, sealed.uncompressedLength);
  }
  await pm.flush();
  return saved;
}

describe('adoptPacks', () => {
  beforeAll(initEngine);

  it('indexes the packs no index lists from their headers, skipping the missing, the damaged and the indexed', async () => {
    const { repo, backend } = await memRepo();
    const blobs = Array.from({ length: 12 }, (_, i) => seededBytes(100 + i, 3000 + i * 100));
    const noted: ID[] = [];
    const saved = await storeUnindexed(repo, backend, blobs, 10_000, noted);
    expect(saved.length).toBeGreaterThan(2);
    expect(noted.sort()).toEqual(saved.map((p) => p.id).sort());

    // A pack whose tail is not a header (cut short, or not ours), and a pack that never arrived.
    const junk = seededBytes(7, 5000);
    const junkID = await hashID(junk);
    await backend.save({ type: 'data', name: junkID }, junk);
    const missing = 'ab'.repeat(32);

    // A later run: the repository opened afresh knows none of these packs.
    const later = await Repository.open(backend, TEST_PASSWORD);
    await later.loadIndex();
    await expect(later.loadBlob('data', await hashID(blobs[0]!))).rejects.toMatchObject({ code: 'BLOB_NOT_FOUND' });
    const r = await adoptPacks(later, [...noted, junkID, missing, noted[0]!]);
    expect(r.adopted.map((p) => p.id).sort()).toEqual(noted.sort());
    expect(r.adopted.find((p) => p.id === saved[0]!.id)!.blobs).toEqual(saved[0]!.blobs);
    expect(r.skipped.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [
        { id: junkID, why: 'unreadable' },
        { id: missing, why: 'missing' },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    for (const b of blobs) expect(await later.loadBlob('data', await hashID(b))).toEqual(b);

    // What it wrote is an index file like any other: a third run finds the blobs through it.
    const third = await Repository.open(backend, TEST_PASSWORD);
    await third.loadIndex();
    expect((await third.listIDs('index')).length).toBe(1);
    for (const b of blobs) expect(await third.loadBlob('data', await hashID(b))).toEqual(b);
    // Adopting again finds them indexed and writes nothing.
    const again = await adoptPacks(third, noted);
    expect(again.adopted).toEqual([]);
    expect(again.skipped.every((s) => s.why === 'indexed')).toBe(true);
    expect((await third.listIDs('index')).length).toBe(1);
  });

  it('writes no index file when nothing is left to adopt', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    expect(await adoptPacks(repo, ['cd'.repeat(32)])).toEqual({ adopted: [], skipped: [{ id: 'cd'.repeat(32), why: 'missing' }] });
    expect(await repo.listIDs('index')).toEqual([]);
  });
});
