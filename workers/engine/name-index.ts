// Search's index of the offline cache: each folder as an outline (its entries' names in tree
// order, and which of them are folders, with their subtrees) instead of its whole tree, and
// each distinct list of names stored once, however many snapshots and versions of the folder
// share it. A change to a few files makes a new tree of nearly every folder, with the same
// names: 100 snapshots of a 200 000-file folder then hold ~50 000 trees but a few hundred lists.
//
// Records are sealed with the repository's master key (core/crypto/seal) before they are
// stored, like everything else in the cache. A list's record name is a hash of the key and the
// names, so equal lists share a record without the name telling anything of the names.

import { open, seal, type Key } from '../../core/crypto';
import type { Tree } from '../../core/data';
import { hashID, type ID } from '../../core/id';

/** A folder as search and the snapshot sizes need it. `names` may be shared by many outlines (never changed). */
export interface Outline {
  names: readonly string[];
  /** The entries that are folders: their position in `names` and their subtree, in tree order. */
  dirs: readonly (readonly [pos: number, subtree: ID])[];
  /** The sizes of the folder's own files added up; undefined in records an older app stored. */
  bytes?: number;
}

/** Where the sealed records live (the engine's IndexedDB; a map in unit tests). */
export interface OutlineStore {
  /** Every record of a kind: `lists` by hash, `outlines` by snapshot. */
  all(kind: OutlineKind): Promise<{ name: string; bytes: Uint8Array }[]>;
  names(kind: OutlineKind): Promise<string[]>;
  put(kind: OutlineKind, records: { name: string; bytes: Uint8Array }[]): Promise<void>;
}

export type OutlineKind = 'lists' | 'outlines';

export function outlineOf(tree: Tree): Outline {
  const names: string[] = [];
  const dirs: [number, ID][] = [];
  let bytes = 0;
  tree.nodes.forEach((n, i) => {
    names.push(n.name);
    if (n.type === 'dir' && n.subtree) dirs.push([i, n.subtree]);
    else if (n.type === 'file') bytes += n.size ?? 0;
  });
  return { names, dirs, bytes };
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

const sealJSON = (key: Key, value: unknown) => seal(key, utf8.encode(JSON.stringify(value)));
const openJSON = async (key: Key, bytes: Uint8Array): Promise<unknown> => JSON.parse(fromUtf8.decode(await open(key, bytes)));

/** The record name of a list: keyed with the master key, so it identifies the list to its holder only. */
async function listName(key: Key, json: string): Promise<string> {
  const secret = new Uint8Array([...key.macR, ...key.macK, ...key.encrypt]);
  const text = utf8.encode(json);
  const all = new Uint8Array(secret.length + text.length);
  all.set(secret);
  all.set(text, secret.length);
  return hashID(all);
}

/** One snapshot's record: the outlines of the trees first read for it, each naming its list (`bytes` missing in older records). */
type OutlineRecord = [tree: ID, list: string, dirs: [number, ID][], bytes?: number][];

/**
 * Collects the outlines of one fill (workers/engine/offline-fill.ts) and stores them per
 * snapshot: `commit` stores the lists not stored yet, then the snapshot's outlines, so a stored
 * outline's list is always there.
 */
export class OutlineWriter {
  readonly #key: Key;
  readonly #store: OutlineStore;
  #stored: Promise<Set<string>> | undefined;
  #lists = new Map<string, string>();
  #record: OutlineRecord = [];

  constructor(key: Key, store: OutlineStore) {
    this.#key = key;
    this.#store = store;
  }

  async add(id: ID, tree: Tree): Promise<void> {
    const o = outlineOf(tree);
    const json = JSON.stringify(o.names);
    const name = await listName(this.#key, json);
    this.#lists.set(name, json);
    this.#record.push([id, name, o.dirs as [number, ID][], o.bytes]);
  }

  async commit(snapshot: ID): Promise<void> {
    const stored = await (this.#stored ??= this.#store.names('lists').then((n) => new Set(n)));
    const lists = [...this.#lists].filter(([name]) => !stored.has(name));
    const sealed = await Promise.all(lists.map(async ([name, json]) => ({ name, bytes: await seal(this.#key, utf8.encode(json)) })));
    await this.#store.put('lists', sealed);
    for (const [name] of lists) stored.add(name);
    await this.#store.put('outlines', [{ name: snapshot, bytes: await sealJSON(this.#key, this.#record) }]);
    this.#lists = new Map();
    this.#record = [];
  }
}

/** Every stored outline by tree ID. A record that does not open is left out: its trees are read instead. */
export async function loadOutlines(key: Key, store: OutlineStore): Promise<Map<ID, Outline>> {
  const opened = async (kind: OutlineKind) => {
    const records = await store.all(kind);
    return Promise.all(records.map(async (r) => [r.name, await openJSON(key, r.bytes).catch(() => undefined)] as const));
  };
  const [listRecords, outlineRecords] = await Promise.all([opened('lists'), opened('outlines')]);
  const lists = new Map<string, readonly string[]>();
  for (const [name, names] of listRecords) if (Array.isArray(names)) lists.set(name, names as string[]);
  const out = new Map<ID, Outline>();
  for (const [, rec] of outlineRecords) {
    if (!Array.isArray(rec)) continue;
    for (const [tree, list, dirs, bytes] of rec as OutlineRecord) {
      const names = lists.get(list);
      if (names) out.set(tree, typeof bytes === 'number' ? { names, dirs, bytes } : { names, dirs });
    }
  }
  return out;
}

/** An outline store in memory (unit tests, and repositories without an offline cache). */
export function memoryOutlineStore(): OutlineStore & { records: Map<string, Uint8Array> } {
  const records = new Map<string, Uint8Array>();
  const of = (kind: OutlineKind) => [...records].filter(([k]) => k.startsWith(`${kind}/`)).map(([k, bytes]) => ({ name: k.slice(kind.length + 1), bytes }));
  return {
    records,
    all: async (kind) => of(kind),
    names: async (kind) => of(kind).map((r) => r.name),
    put: async (kind, rs) => void rs.forEach((r) => records.set(`${kind}/${r.name}`, r.bytes)),
  };
}
