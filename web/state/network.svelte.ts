// Online / offline, as the browser reports it. Bucket operations that need data (not cached
// metadata) check this before they start, so the user gets "needs the network" instead of a
// timeout.

class NetworkStatus {
  #online = $state(typeof navigator === 'undefined' ? true : navigator.onLine);

  constructor() {
    if (typeof window === 'undefined') return;
    window.addEventListener('online', () => (this.#online = true));
    window.addEventListener('offline', () => (this.#online = false));
  }

  get online(): boolean {
    return this.#online;
  }
}

export const network = new NetworkStatus();
