// The items ticked in a snapshot's folder view, for one ZIP of several items or a restore of
// them. A tick belongs to its folder: opening another folder (or snapshot) starts afresh.

class TreeSelection {
  #folder = $state('');
  #names = $state.raw<ReadonlySet<string>>(new Set());

  /** Keeps the ticks only while the same folder of the same snapshot is shown. */
  showing(snapshotId: string, path: readonly string[]): void {
    const key = JSON.stringify([snapshotId, ...path]);
    if (key === this.#folder) return;
    this.#folder = key;
    this.#names = new Set();
  }

  get names(): string[] {
    return [...this.#names];
  }
  get count(): number {
    return this.#names.size;
  }

  has(name: string): boolean {
    return this.#names.has(name);
  }

  toggle(name: string, on = !this.#names.has(name)): void {
    const next = new Set(this.#names);
    if (on) next.add(name);
    else next.delete(name);
    this.#names = next;
  }

  setAll(names: readonly string[]): void {
    this.#names = new Set(names);
  }

  clear(): void {
    this.#names = new Set();
  }
}

export const selection = new TreeSelection();
