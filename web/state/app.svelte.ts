// App start-up and app-wide notices: loads the remembered repositories, reopens the last one
// when its key is remembered on this device (showing its kept listing meanwhile), and offers a
// new version when the service worker has one waiting. The engine worker is started earlier,
// by ../lib/boot.ts.

import { adoptEarlyUnlock, earlyLastList, earlyLastView } from '../lib/boot';
import { dropEarlyListing } from '../lib/early-listing';
import { getPref, type RememberedRepo } from '../lib/db';
import { describeError, type Described } from '../lib/messages';
import { history } from './history.svelte';
import { plans } from './plans.svelte';
import { remembered } from './remembered.svelte';
import { scheduler } from './scheduler.svelte';
import { settings } from './settings.svelte';
import { snapshots } from './snapshots.svelte';
import { LAST_REPO_PREF, session } from './session.svelte';
import { tree } from './tree.svelte';

class AppState {
  #started = $state(false);
  #update = $state.raw<(() => void) | undefined>();
  #fatal = $state.raw<Described | undefined>();
  #opening = $state.raw<RememberedRepo | undefined>();

  get started(): boolean {
    return this.#started;
  }
  get updateReady(): boolean {
    return this.#update !== undefined;
  }
  get fatal(): Described | undefined {
    return this.#fatal;
  }
  /** While starting: the remembered repository being opened without a password (its kept views may show). */
  get opening(): RememberedRepo | undefined {
    return this.#opening;
  }

  async start(): Promise<void> {
    // The start-up hint's repository (which stays unlocked): show its kept listing of the
    // folder the page opened on, as soon as the small worker has it, until the engine lists it
    // afresh. Should the remembered list below name another repository, it goes again.
    let hinted = true;
    void earlyLastView().then((v) => v && hinted && !this.#started && tree.showKept(v));
    void earlyLastList().then((l) => l && hinted && !this.#started && snapshots.showKept(l));
    // Settings (the host name a backup uses), plans and history: read alongside the list.
    const local = Promise.all([settings.load(), plans.load(), history.load()]);
    try {
      await remembered.refresh();
      performance.mark('cairn:remembered-loaded');
      const last = remembered.byId(await getPref<string | null>(LAST_REPO_PREF));
      const auto = last?.autoUnlock && last.location.kind !== 'folder' ? last : undefined;
      const early = await adoptEarlyUnlock(auto);
      if (!early) {
        hinted = false;
        dropEarlyListing();
        tree.clear(); // the hint named another repository: drop its kept listing
        if (snapshots.kept) snapshots.clear();
      }
      if (early?.snapshots) snapshots.adopt(early.snapshots);
      await local;
      if (early) this.#opening = auto;
      if (auto) await session.unlockRemembered(auto, early?.info);
    } catch (e) {
      this.#fatal = describeError(e);
    } finally {
      // From here the UI shows what it decided; a kept listing must not outlive a failed unlock.
      dropEarlyListing();
      if (!session.isOpen) tree.clear();
      if (!session.isOpen && snapshots.kept) snapshots.clear();
      this.#opening = undefined;
      this.#started = true;
      performance.mark('cairn:started');
    }
    await local.catch(() => {});
    await scheduler.start();
  }

  offerUpdate(activate: () => void): void {
    this.#update = activate;
  }

  applyUpdate(): void {
    this.#update?.();
  }
}

export const app = new AppState();
