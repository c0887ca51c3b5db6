// The repository's small files: index files (loaded into the master index), key files (each
// must hash to its name and parse; their MAC needs that key's password), and lock files
// (unreadable ones are hints: a lock is honoured or ignored, never repaired by check).

import { hashID, isID, type ID } from '../id';
import { decodeIndex } from '../index/index-file';
import type { PackedBlob } from '../pack/header';
import { parseKeyFile } from '../repository/keyfile';
import { listLocks } from '../repository/lock';
import type { Repository } from '../repository/repository';
import { isCairnError, isNotFound } from '../errors';
import { mapLimit } from '../concurrency/concurrency';
import { problemFrom, type Report } from './problems';

/** Loads every index file; returns the packs they list (first listing wins, as in the master index). */
export async function loadIndexes(repo: Repository, problem: Report, signal?: AbortSignal): Promise<Map<ID, PackedBlob[]>> {
  const indexed = new Map<ID, PackedBlob[]>();
  // Loaded 8 at a time (a bucket's round trips), added in the order they arrive.
  await mapLimit(await repo.listIDs('index', signal), 8, async (id) => {
    try {
      for (const p of decodeIndex(await repo.loadJSON('index', id, signal), id)) {
        if (indexed.has(p.id)) continue;
        indexed.set(p.id, p.blobs);
        repo.index.addPack(p.id, p.blobs);
      }
    } catch (e) {
      if (isCairnError(e, 'ABORTED')) throw e;
      const { code, message } = problemFrom(e, `index ${id.slice(0, 8)}`);
      problem({ kind: 'index', code, file: `index/${id}`, message: `error loading index ${id.slice(0, 8)}: ${message.replace(/^index [0-9a-f]{8}: /, '')}` });
    }
  });
  return indexed;
}

/** Every key file hashes to its name and is a key file restic could use. */
export async function checkKeys(repo: Repository, problem: Report, signal?: AbortSignal): Promise<void> {
  for await (const fi of repo.backend.list('keys', { signal })) {
    if (!isID(fi.name)) continue;
    const file = `keys/${fi.name}`;
    if (fi.size > 64 * 1024) {
      problem({ kind: 'key', code: 'BAD_KEY_FILE', file, message: `key ${fi.name.slice(0, 8)}: ${fi.size} bytes, not a key file` });
      continue;
    }
    try {
      const bytes = await repo.backend.load({ type: 'keys', name: fi.name }, { signal });
      if ((await hashID(bytes)) !== fi.name) {
        problem({ kind: 'key', code: 'HASH_MISMATCH', file, message: `key ${fi.name.slice(0, 8)}: content does not match its name (damaged key file)` });
        continue;
      }
      parseKeyFile(bytes, fi.name);
    } catch (e) {
      if (isNotFound(e)) continue; // removed meanwhile
      problem({ kind: 'key', file, ...problemFrom(e, `key ${fi.name.slice(0, 8)}`) });
    }
  }
}

/** Lock files that cannot be read: reported as hints (restic unlock removes them). */
export async function checkLocks(repo: Repository, problem: Report, signal?: AbortSignal): Promise<void> {
  for (const { id, error } of await listLocks(repo, signal)) {
    if (!error) continue;
    const { code, message } = problemFrom(error, `lock ${id.slice(0, 8)}`);
    problem({ kind: 'lock', code, file: `locks/${id}`, hint: true, message: `${message} (cairn unlock --remove-all removes it)` });
  }
}
