// Looking across snapshots: file-name search, one file's versions, and the difference between
// two snapshots. All three answer from tree metadata (cached, so they work offline).

import type { DiffEntry, SearchHit, VersionView } from '../../workers/api';
import { engine } from '../lib/engine';
import { Loadable } from './loadable.svelte';

export const SEARCH_LIMIT = 200;

class Search {
  readonly results = new Loadable<SearchHit[]>();
  #query = $state('');

  get query(): string {
    return this.#query;
  }

  async run(query: string): Promise<void> {
    this.#query = query.trim();
    if (!this.#query) return this.results.clear();
    await this.results.load(() => engine().search(this.#query, SEARCH_LIMIT));
  }
}

class Versions {
  readonly results = new Loadable<VersionView[]>();
  #path = $state.raw<string[]>([]);

  get path(): string[] {
    return this.#path;
  }

  async load(path: string[]): Promise<void> {
    this.#path = path;
    await this.results.load(() => engine().versions(path));
  }
}

class Diff {
  readonly results = new Loadable<DiffEntry[]>();
  #a = $state('');
  #b = $state('');

  get a(): string {
    return this.#a;
  }
  get b(): string {
    return this.#b;
  }

  async run(a: string, b: string): Promise<void> {
    this.#a = a;
    this.#b = b;
    if (!a || !b) return this.results.clear();
    await this.results.load(() => engine().diff(a, b));
  }
}

export const search = new Search();
export const versions = new Versions();
export const diff = new Diff();
