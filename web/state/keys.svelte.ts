// The open repository's keys (passwords): the list as restic's `key list` shows it, adding a
// password, changing the one in use, removing one. A password typed here goes to the engine once
// and is kept in no field. Changing the password also re-encrypts the bucket keys this device
// remembers for the repository (they are sealed with the repository password, ../lib/secrets.ts).

import type { KeyView, S3Auth } from '../../workers/api';
import { engine } from '../lib/engine';
import { describeError, type Described } from '../lib/messages';
import { decryptSecret, encryptSecret } from '../lib/secrets';
import { Loadable } from './loadable.svelte';
import { remembered } from './remembered.svelte';
import { session } from './session.svelte';

class RepositoryKeys {
  readonly #list = new Loadable<KeyView[]>();
  #busy = $state(false);
  #error = $state.raw<Described | undefined>();
  #notice = $state('');

  get items(): KeyView[] {
    return this.#list.value ?? [];
  }
  get loading(): boolean {
    return this.#list.loading;
  }
  get loadError(): Described | undefined {
    return this.#list.error;
  }
  get busy(): boolean {
    return this.#busy;
  }
  /** The last change's failure. */
  get error(): Described | undefined {
    return this.#error;
  }
  /** The last change's outcome, in words. */
  get notice(): string {
    return this.#notice;
  }

  async load(): Promise<void> {
    await this.#list.load(() => engine().listKeys(), { keep: true });
  }

  clear(): void {
    this.#list.clear();
    this.#error = undefined;
    this.#notice = '';
  }

  /** Adds a password (for `username`: "recovery", a person's name). */
  add(password: string, username: string): Promise<boolean> {
    return this.#change(async () => {
      const k = await engine().addKey(password, { username });
      return `Added key ${k.shortId} for ${k.username}.`;
    });
  }

  /** Replaces the key in use with one for `next`; `current` must open the repository. */
  change(current: string, next: string): Promise<boolean> {
    return this.#change(async () => {
      const k = await engine().changePassword(current, next);
      await this.#resealBucketKeys(current, next);
      return `Password changed (new key ${k.shortId}). The old password no longer opens this repository.`;
    });
  }

  remove(id: string, allowCurrent: boolean): Promise<boolean> {
    return this.#change(async () => {
      await engine().removeKey(id, { allowCurrent });
      return `Removed key ${id.slice(0, 8)}.`;
    });
  }

  async #change(work: () => Promise<string>): Promise<boolean> {
    if (this.#busy) return false;
    this.#busy = true;
    this.#error = undefined;
    this.#notice = '';
    try {
      this.#notice = await work();
      return true;
    } catch (e) {
      this.#error = describeError(e);
      return false;
    } finally {
      this.#busy = false;
      await this.load();
    }
  }

  /** Bucket keys remembered encrypted with the old password are sealed again with the new one. */
  async #resealBucketKeys(current: string, next: string): Promise<void> {
    const entry = session.entry && remembered.byId(session.entry.id);
    if (!entry?.credentials) return;
    try {
      const auth = await decryptSecret<S3Auth>(entry.credentials, current, entry.id);
      await remembered.save({ ...entry, credentials: await encryptSecret(auth, next, entry.id) });
    } catch {
      // unreadable with the old password: they were already of no use; the user types them again
    }
  }
}

export const repositoryKeys = new RepositoryKeys();
