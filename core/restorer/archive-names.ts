// The entry names an archive writer accepts (ZIP and tar alike): nothing an extractor could
// write outside the folder it extracts into.

import { CairnError } from '../errors';

export class ArchiveNames {
  /** Every entry's name (directories without their slash), and the symlinks' among them. */
  readonly #names = new Set<string>();
  readonly #links = new Set<string>();

  /**
   * Records `name` (without a trailing slash), or refuses it: absolute (`/x`, `C:x`), a `..`
   * segment (also between backslashes, which Windows tools read as separators), a NUL, an
   * empty segment, a name already in the archive, or one below a symlink entry.
   */
  claim(name: string, format: string, symlink = false): void {
    const parts = name.split('/');
    let bad = name === '' || /^[A-Za-z]:/.test(name) || name.includes('\0') || this.#names.has(name);
    bad ||= name.split(/[\\/]/).some((s) => s === '' || s === '..');
    for (let i = 1; i < parts.length && !bad && this.#links.size; i++) bad = this.#links.has(parts.slice(0, i).join('/'));
    if (bad)
      throw new CairnError('INVALID_NAME', `${format}: refused the entry name ${JSON.stringify(name)}: it could be extracted outside the archive's folder`, {
        detail: { path: name },
      });
    this.#names.add(name);
    if (symlink) this.#links.add(name);
  }

  has(name: string): boolean {
    return this.#names.has(name);
  }
}
