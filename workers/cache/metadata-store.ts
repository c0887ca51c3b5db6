// What the offline cache keeps, as the narrow interface CachedBackend needs: objects by
// repository, type and name, one listing per repository and type, and which repository lives
// at a location. The app's store is IndexedDB (db.ts); tests use the in-memory one, so the
// decorator runs through the backend conformance suite without a browser.

import * as db from './db';

export type CachedType = db.CachedType;
export type ListingEntry = { name: string; size: number };

export interface MetadataStore {
  getObject(repo: string, type: CachedType, name: string): Promise<Uint8Array | undefined>;
  putObject(repo: string, type: CachedType, name: string, bytes: Uint8Array): Promise<void>;
  deleteObject(repo: string, type: CachedType, name: string): Promise<void>;
  getListing(repo: string, type: CachedType): Promise<ListingEntry[] | undefined>;
  putListing(repo: string, type: CachedType, entries: ListingEntry[]): Promise<void>;
  /** Adds or replaces `add` and drops `remove` in a stored listing; no listing, no change. */
  editListing(repo: string, type: CachedType, add?: ListingEntry, remove?: string): Promise<void>;
  /** Links a location to the repository there and the key file that opened it. */
  putLocation(locationKey: string, repoId: string, keyId?: string): Promise<void>;
}

/** The app's store: the IndexedDB database db.ts owns. */
export const indexedDbStore: MetadataStore = {
  getObject: db.getObject,
  putObject: db.putObject,
  deleteObject: db.deleteObject,
  getListing: db.getListing,
  putListing: db.putListing,
  editListing: db.editListing,
  putLocation: db.putLocation,
};

/**
 * A store in memory (tests); `failing` makes every call reject, as a full or broken cache would
 * (with the error it returns, when it returns one).
 */
export function memoryStore(
  opts: { failing?: () => boolean | Error } = {},
): MetadataStore & { objects: Map<string, Uint8Array>; listings: Map<string, ListingEntry[]>; locations: Map<string, string>; lastKeys: Map<string, string> } {
  const objects = new Map<string, Uint8Array>();
  const listings = new Map<string, ListingEntry[]>();
  const locations = new Map<string, string>();
  const lastKeys = new Map<string, string>();
  const gate = async () => {
    const fails = opts.failing?.();
    if (fails) throw fails instanceof Error ? fails : new Error('cache store unavailable');
  };
  const k = (...parts: string[]) => parts.join('\0');
  return {
    objects,
    listings,
    locations,
    lastKeys,
    async getObject(repo, type, name) {
      await gate();
      return objects.get(k(repo, type, name))?.slice();
    },
    async putObject(repo, type, name, bytes) {
      await gate();
      objects.set(k(repo, type, name), bytes.slice());
    },
    async deleteObject(repo, type, name) {
      await gate();
      objects.delete(k(repo, type, name));
    },
    async getListing(repo, type) {
      await gate();
      return listings.get(k(repo, type))?.map((e) => ({ ...e }));
    },
    async putListing(repo, type, entries) {
      await gate();
      listings.set(
        k(repo, type),
        entries.map((e) => ({ ...e })),
      );
    },
    async editListing(repo, type, add, remove) {
      await gate();
      const cur = listings.get(k(repo, type));
      if (!cur) return;
      const next = cur.filter((e) => e.name !== add?.name && e.name !== remove);
      listings.set(k(repo, type), add ? [...next, { ...add }] : next);
    },
    async putLocation(locationKey, repoId, keyId) {
      await gate();
      if (keyId) lastKeys.set(locationKey, keyId);
      else if (locations.get(locationKey) !== repoId) lastKeys.delete(locationKey);
      locations.set(locationKey, repoId);
    },
  };
}
