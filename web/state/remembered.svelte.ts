// The repositories this browser remembers (locations, never secrets in the clear), newest
// first, for the switcher on the repository screen.

import { deleteRepo, listRepos, putRepo, type RememberedRepo, type StoredLocation } from '../lib/db';
import { sameLocation } from '../lib/locations';

class RememberedRepos {
  #items = $state.raw<RememberedRepo[]>([]);
  #loaded = $state(false);

  get items(): RememberedRepo[] {
    return this.#items;
  }
  get loaded(): boolean {
    return this.#loaded;
  }

  async refresh(): Promise<void> {
    this.#items = await listRepos();
    this.#loaded = true;
  }

  byId(id: string | null | undefined): RememberedRepo | undefined {
    return id ? this.#items.find((r) => r.id === id) : undefined;
  }

  async find(loc: StoredLocation): Promise<RememberedRepo | undefined> {
    if (!this.#loaded) await this.refresh();
    for (const r of this.#items) {
      if (sameLocation(r.location, loc)) return r;
      if (r.location.kind === 'folder' && loc.kind === 'folder' && (await r.location.handle.isSameEntry(loc.handle))) return r;
    }
    return undefined;
  }

  async save(entry: RememberedRepo): Promise<void> {
    await putRepo(entry);
    await this.refresh();
  }

  async forget(id: string): Promise<void> {
    await deleteRepo(id);
    await this.refresh();
  }
}

export const remembered = new RememberedRepos();
