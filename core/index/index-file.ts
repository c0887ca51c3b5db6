// Index files (restic internal/repository/index/index.go, docs/restic-format.md §7):
// {"packs":[{"id":…,"blobs":[{"id","type","offset","length","uncompressed_length"?}]}]}
// We also read the legacy top-level array form and ignore unknown fields (rustic's
// time/size, packs_to_delete; restic's old supersedes).

import { CairnError } from '../errors';
import { isID, type ID } from '../id';
import type { PackedBlob } from '../pack/header';

export interface IndexPack {
  id: ID;
  blobs: PackedBlob[];
}

interface JSONBlob {
  id: string;
  type: string;
  offset: number;
  length: number;
  uncompressed_length?: number;
}

export function encodeIndex(packs: readonly IndexPack[]): string {
  const out = {
    packs: packs.map((p) => ({
      id: p.id,
      blobs: p.blobs.map((b) => {
        const j: JSONBlob = { id: b.id, type: b.type, offset: b.offset, length: b.length };
        if (b.uncompressedLength > 0) j.uncompressed_length = b.uncompressedLength;
        return j;
      }),
    })),
  };
  return JSON.stringify(out) + '\n';
}

const isUint = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffffffff;

export function decodeIndex(json: unknown, indexID = '?'): IndexPack[] {
  const bad = (msg: string) => new CairnError('BAD_INDEX', `index ${indexID.slice(0, 8)}: ${msg}`, { detail: { index: indexID } });
  const packsJSON = Array.isArray(json) ? json : (json as { packs?: unknown } | null)?.packs;
  if (!Array.isArray(packsJSON)) throw bad('no "packs" list');
  const packs: IndexPack[] = [];
  for (const p of packsJSON as { id?: unknown; blobs?: unknown }[]) {
    if (!p || !isID(p.id) || !Array.isArray(p.blobs)) throw bad('malformed pack entry');
    const blobs: PackedBlob[] = [];
    for (const b of p.blobs as Partial<JSONBlob>[]) {
      if (!b || !isID(b.id) || (b.type !== 'data' && b.type !== 'tree') || !isUint(b.offset) || !isUint(b.length)) {
        throw bad(`malformed blob entry in pack ${p.id.slice(0, 8)}`);
      }
      const ul = b.uncompressed_length ?? 0;
      if (!isUint(ul)) throw bad('malformed uncompressed_length');
      blobs.push({ id: b.id, type: b.type, offset: b.offset, length: b.length, uncompressedLength: ul });
    }
    packs.push({ id: p.id, blobs });
  }
  return packs;
}
