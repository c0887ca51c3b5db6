// The items ticked in a snapshot's folder view, for one ZIP of several items or a restore of
// them. A tick belongs to its folder: opening another folder (or snapshot) starts afresh.

class TreeSelection {
  #folder = $state('');
  #names = $state.raw<readonly string[]>([]);

  /** Keeps the ticks only while the same folder of the same snapshot is shown. */
  showing(snapshotId: string, path: readonly string[]): void {
    const key = JSON.stringify([snapshotId, ...path]);
    if (key === this.#folder) return;
    this.#folder = key;
    this.#names = [];
  }

  get names(): string[] {
    return [...this.#names];
  }
  get count(): number {
    return this.#names.length;
  }

  has(name: string): boolean {
    return this.#names.includes(name);
  }

  toggle(name: string, on = !this.#names.includes(name)): void {
    const rest = this.#names.filter((n) => n !== name);
    this.#names = on ? [...rest, name] : rest;
  }

  setAll(names: readonly string[]): void {
    this.#names = [...new Set(names)];
  }

  clear(): void {
    this.#names = [];
  }
}

export const selection = new TreeSelection();
