// Packs against the index: each listed pack exists with exactly the size its blobs imply
// (restic "unexpected file size"); stored packs no index lists are hints. Reading their data
// is read-packs.ts.

import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { expectedPackSize } from '../pack/reader';
import type { PackedBlob } from '../pack/header';
import type { Report } from './problems';

/** Compares the stored packs with the index; returns the stored sizes. */
export async function checkPackList(repo: Repository, indexed: Map<ID, PackedBlob[]>, problem: Report, signal?: AbortSignal): Promise<Map<ID, number>> {
  const stored = new Map<ID, number>();
  for await (const fi of repo.backend.list('data', { signal })) stored.set(fi.name, fi.size);
  for (const [pack, blobs] of indexed) {
    const size = stored.get(pack);
    if (size === undefined) problem({ kind: 'pack-missing', code: 'NOT_FOUND', pack, message: `pack ${pack}: does not exist` });
    else if (size !== expectedPackSize(blobs)) {
      problem({ kind: 'pack-size', code: 'BAD_PACK', pack, message: `pack ${pack}: unexpected file size: got ${size}, expected ${expectedPackSize(blobs)}` });
    }
  }
  for (const pack of stored.keys()) {
    if (!indexed.has(pack)) problem({ kind: 'pack-unreferenced', code: 'BAD_PACK', pack, hint: true, message: `pack ${pack} not referenced in any index` });
  }
  return stored;
}

/** "pack 1234abcd: invalid header length" → "invalid header length" (the line names the pack already). */
export function stripPack(message: string, pack: ID): string {
  const short = `pack ${pack.slice(0, 8)}: `;
  return message.startsWith(short) ? message.slice(short.length) : message;
}

/** "data blob a9fb6f65 in pack 3131f378 fails authentication (corrupt)" → "fails authentication (corrupt)". */
export function stripBlob(message: string, blob: ID): string {
  const m = new RegExp(`^(data|tree) blob ${blob.slice(0, 8)}( in pack [0-9a-f]{8})? `).exec(message);
  return m ? message.slice(m[0].length) : message;
}
