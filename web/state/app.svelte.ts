// App start-up and app-wide notices: warms the engine worker, loads the remembered
// repositories, reopens the last one when its key is remembered on this device, and offers a
// new version when the service worker has one waiting.

import { adoptEarlyUnlock } from '../lib/boot';
import { getPref } from '../lib/db';
import { engine } from '../lib/engine';
import { describeError, type Described } from '../lib/messages';
import { remembered } from './remembered.svelte';
import { LAST_REPO_PREF, session } from './session.svelte';

class AppState {
  #started = $state(false);
  #update = $state.raw<(() => void) | undefined>();
  #fatal = $state.raw<Described | undefined>();

  get started(): boolean {
    return this.#started;
  }
  get updateReady(): boolean {
    return this.#update !== undefined;
  }
  get fatal(): Described | undefined {
    return this.#fatal;
  }

  async start(): Promise<void> {
    try {
      engine(); // start the worker (and its WASM) while the user looks at the screen
      await remembered.refresh();
      performance.mark('cairn:remembered-loaded');
      const last = remembered.byId(await getPref<string | null>(LAST_REPO_PREF));
      const auto = last?.autoUnlock && last.location.kind !== 'folder' ? last : undefined;
      const early = await adoptEarlyUnlock(auto);
      if (auto) await session.unlockRemembered(auto, early?.info);
    } catch (e) {
      this.#fatal = describeError(e);
    } finally {
      this.#started = true;
      performance.mark('cairn:started');
    }
  }

  offerUpdate(activate: () => void): void {
    this.#update = activate;
  }

  applyUpdate(): void {
    this.#update?.();
  }
}

export const app = new AppState();
