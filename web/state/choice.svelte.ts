// The folder chosen for the next backup by hand, before it starts: picked on the Back up page,
// or dropped anywhere on the app (then the Back up page opens with it).

import type { BackupSource } from '../../workers/api';
import type { DroppedFolder } from '../lib/fsa';
import { describeError, type Described } from '../lib/messages';

export interface Chosen {
  source: BackupSource;
  name: string;
  /** Lines for the summary's "not backed up": what the browser does not hand over with this way in. */
  notes: string[];
}

/**
 * What each way in leaves out, in words for the summary: browsers hand over no symbolic links
 * (Chromium's folder access skips them); a folder picked through <input webkitdirectory> comes
 * as a list of its files, without its empty folders; a dropped one read entry by entry names
 * its empty folders, which a list of files cannot carry.
 */
export function notesFor(source: BackupSource, how: 'pick' | 'drop', emptyFolders: string[] = []): string[] {
  const notes = emptyFolders.map((p) => `${p}/ — an empty folder: a dropped folder reaches the backup as a list of its files.`);
  if (source.kind === 'files' && how === 'pick')
    notes.push('Empty folders and symbolic links: with a picked folder this browser hands over only its files, so they are not in this snapshot.');
  else notes.push('Symbolic links: the browser does not hand them over, so any in the folder are not in this snapshot.');
  return notes;
}

class BackupChoice {
  #pending = $state.raw<Chosen | undefined>();
  #error = $state.raw<Described | undefined>();

  get pending(): Chosen | undefined {
    return this.#pending;
  }
  /** A drop that held no folder, or could not be read. */
  get error(): Described | undefined {
    return this.#error;
  }

  choose(source: BackupSource, name: string, how: 'pick' | 'drop' = 'pick', emptyFolders: string[] = []): void {
    this.#error = undefined;
    this.#pending = { source, name, notes: notesFor(source, how, emptyFolders) };
  }

  /** A drop in progress (from the drop handler, which must call sourceFromDrop itself). */
  async dropped(folder: Promise<DroppedFolder>): Promise<boolean> {
    try {
      const f = await folder;
      this.choose(f.source, f.name, 'drop', f.emptyFolders);
      return true;
    } catch (e) {
      this.#pending = undefined;
      this.#error = describeError(e);
      return false;
    }
  }

  fail(e: unknown): void {
    this.#pending = undefined;
    this.#error = e === undefined ? undefined : describeError(e);
  }

  clear(): void {
    this.#pending = undefined;
  }
}

export const choice = new BackupChoice();
