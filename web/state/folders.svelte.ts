// Folders picked for backup before (File System Access handles kept in IndexedDB), so a repeat
// backup is one click: the handle is reused and only the permission is asked again.

import { forgetFolder, listFolders, rememberFolder, type RememberedFolder } from '../lib/db';
import { canPickDirectory } from '../lib/fsa';

class RememberedFolders {
  #items = $state.raw<RememberedFolder[]>([]);

  get items(): RememberedFolder[] {
    return this.#items;
  }

  async refresh(): Promise<void> {
    if (!canPickDirectory) return; // webkitdirectory selections cannot be kept
    this.#items = await listFolders();
  }

  async remember(handle: FileSystemDirectoryHandle, settings: { tags: string[]; excludes: string[] }): Promise<RememberedFolder> {
    const f = await rememberFolder(handle, settings);
    await this.refresh();
    return f;
  }

  async forget(id: string): Promise<void> {
    await forgetFolder(id);
    await this.refresh();
  }
}

export const folders = new RememberedFolders();
