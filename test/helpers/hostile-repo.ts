// Snapshots an attacker with a key could write: trees given node by node, in the given order,
// with any names (empty, `..`, `a/b`, NUL, repeated), sealed and indexed by the engine's own
// writer, so every byte is correctly encrypted and only the names are hostile.

import { encodeNode, encodeNodeName, GoTime, type Node } from '../../core/data';
import { encodeSnapshot } from '../../core/data/snapshot';
import { hashID, type ID } from '../../core/id';
import type { IndexPack } from '../../core/index/index-file';
import { encodeBlob } from '../../core/repository/blob-codec';
import { PackerManager } from '../../core/repository/packer-manager';
import type { Repository } from '../../core/repository/repository';

export type HostileNode =
  | { name: string; type: 'file'; data: string | Uint8Array; mode?: number; uid?: number; gid?: number }
  | { name: string; type: 'dir'; children: HostileNode[]; mode?: number; uid?: number; gid?: number }
  | { name: string; type: 'symlink'; target: string };

const TIME = GoTime.parse('2020-09-13T12:26:40Z');

/** Writes the tree below `nodes` and a snapshot of it; returns the snapshot's ID. */
export async function writeHostileSnapshot(repo: Repository, nodes: HostileNode[], paths = ['/src']): Promise<ID> {
  const saved: IndexPack[] = [];
  const pm = new PackerManager({ key: repo.key, saver: repo.backend, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
  const seen = new Set<string>();
  const put = async (type: 'data' | 'tree', plain: Uint8Array): Promise<ID> => {
    const id = await hashID(plain);
    if (seen.has(type + id) || repo.index.lookup(type, id)) return id;
    seen.add(type + id);
    const enc = await encodeBlob(repo.key, type, plain, repo.version, 'auto');
    await pm.add(type, id, enc.sealed, enc.uncompressedLength);
    return id;
  };
  const tree = async (list: HostileNode[]): Promise<ID> => {
    const parts: string[] = [];
    for (const n of list) parts.push(await nodeJson(n, put, tree));
    return put('tree', new TextEncoder().encode(`{"nodes":[${parts.join(',')}]}\n`));
  };
  const root = await tree(nodes);
  await pm.flush();
  for (const p of saved) repo.index.addPack(p.id, p.blobs);
  if (saved.length) await repo.saveIndex(saved);
  return repo.saveJSON('snapshots', encodeSnapshot({ time: TIME, tree: root, paths, hostname: 'attacker', username: 'mallory' }));
}

async function nodeJson(n: HostileNode, put: (t: 'data' | 'tree', b: Uint8Array) => Promise<ID>, tree: (l: HostileNode[]) => Promise<ID>): Promise<string> {
  const base = { name: 'placeholder', mtime: TIME, atime: TIME, ctime: TIME, uid: 0, gid: 0 };
  let node: Node;
  if (n.type === 'file') {
    const data = typeof n.data === 'string' ? new TextEncoder().encode(n.data) : n.data;
    const content = data.length ? [await put('data', data)] : [];
    node = { ...base, type: 'file', mode: n.mode ?? 0o644, uid: n.uid ?? 0, gid: n.gid ?? 0, size: data.length, content };
  } else if (n.type === 'dir') {
    node = {
      ...base,
      type: 'dir',
      mode: ((n.mode ?? 0o755) | 0x80000000) >>> 0,
      uid: n.uid ?? 0,
      gid: n.gid ?? 0,
      content: null,
      subtree: await tree(n.children),
    };
  } else {
    node = { ...base, type: 'symlink', mode: 0o777 | 0x8000000, linkTarget: n.target, content: null };
  }
  const json = encodeNode(node);
  // The name goes in as restic would quote it, even one restic's own writer never makes.
  return '{"name":' + (n.name === '' ? '""' : encodeNodeName(n.name)) + json.slice(json.indexOf(',"type"'));
}
