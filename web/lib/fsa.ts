// The one module that talks to the browser's folder APIs (browser-fs-access style): the
// capability is decided once, and callers get one signature whatever the browser has —
// File System Access (`showDirectoryPicker`, handles that can be remembered and written to)
// or the legacy `<input webkitdirectory>` (a read-only list of Files, Firefox and Safari).

import type { BackupSource } from '../../workers/api';
import { appError } from './messages';
import { withFileName } from '../../workers/client/relative-path';

export type PickPurpose = CairnPickPurpose;

/** Decided once per page load; tests delete window.showDirectoryPicker before the app loads. */
export const canPickDirectory: boolean = typeof window !== 'undefined' && typeof window.showDirectoryPicker === 'function';

const pickerIds: Record<PickPurpose, string> = { source: 'cairn-source', repository: 'cairn-repository', restore: 'cairn-restore' };

/**
 * Asks the user for a folder. `readwrite` for a repository or a restore target. Rejects with
 * ABORTED when the user closes the dialog, PICKER_UNSUPPORTED without File System Access.
 */
export async function pickDirectory(purpose: PickPurpose): Promise<FileSystemDirectoryHandle> {
  if (__CAIRN_TEST_HOOKS__ && window.__cairnTestPickDirectory) return window.__cairnTestPickDirectory(purpose);
  if (!canPickDirectory) throw appError('PICKER_UNSUPPORTED');
  const mode = purpose === 'source' ? 'read' : 'readwrite';
  try {
    return await window.showDirectoryPicker!({ id: pickerIds[purpose], mode, startIn: purpose === 'source' ? 'documents' : undefined });
  } catch (e) {
    if ((e as DOMException).name === 'AbortError') throw { code: 'ABORTED', message: 'no folder chosen', retryable: false };
    throw e;
  }
}

type PermissionedHandle = FileSystemHandle & {
  queryPermission?: (d: { mode: string }) => Promise<PermissionState>;
  requestPermission?: (d: { mode: string }) => Promise<PermissionState>;
};

/**
 * Makes sure a (remembered) handle may be used, asking the user again if needed. Must run in
 * a click handler: requestPermission needs a user gesture.
 */
export async function ensurePermission(handle: FileSystemHandle, mode: 'read' | 'readwrite'): Promise<void> {
  const h = handle as PermissionedHandle;
  if (!h.queryPermission) return; // OPFS handles and older engines: always granted
  if ((await h.queryPermission({ mode })) === 'granted') return;
  if (h.requestPermission && (await h.requestPermission({ mode })) === 'granted') return;
  throw appError('PERMISSION_DENIED');
}

/**
 * Whether a remembered handle may be used without asking: 'granted' (Chromium keeps access
 * for an installed app, or when the user chose "allow on every visit"), 'prompt' (a click is
 * needed: see ensurePermission) or 'denied'. Needs no user gesture.
 */
export async function permissionState(handle: FileSystemHandle, mode: 'read' | 'readwrite'): Promise<PermissionState> {
  const h = handle as PermissionedHandle;
  if (!h.queryPermission) return 'granted';
  try {
    return await h.queryPermission({ mode });
  } catch {
    return 'prompt';
  }
}

/**
 * The backup source for files chosen through `<input webkitdirectory>`. Throws NOT_A_FOLDER
 * for files that came without their folder (a browser that ignores `webkitdirectory`, or
 * files dropped on the input): each must be "<folder>/<name>" at least.
 */
export function sourceFromFileList(list: FileList | File[]): BackupSource & { kind: 'files' } {
  const files = [...list];
  if (files.some((f) => !f.webkitRelativePath.includes('/'))) throw appError('NOT_A_FOLDER');
  // webkitRelativePath does not survive structured cloning, so it travels next to the files.
  return { kind: 'files', files, relativePaths: files.map((f) => withFileName(f.webkitRelativePath, f.name)) };
}

/** The top folder's name of a webkitdirectory selection ("Photos" for "Photos/a.jpg"). */
export function rootNameOf(source: BackupSource & { kind: 'files' }): string {
  return source.relativePaths[0]?.split('/')[0] ?? 'files';
}

/** A folder dropped onto the page, made a backup source (see sourceFromDrop). */
export interface DroppedFolder {
  source: BackupSource;
  name: string;
  /** Folders found empty (a file list cannot carry them, so they are not backed up). */
  emptyFolders: string[];
}

type HandleItem = DataTransferItem & { getAsFileSystemHandle?: () => Promise<FileSystemHandle | null> };

/**
 * The first folder of a drop: a handle where the browser gives one (Chromium's
 * getAsFileSystemHandle: like a picked folder, it can be remembered), else its files read
 * through webkitGetAsEntry (Firefox, Safari), with the empty folders named. Call it in the drop
 * handler itself: the items are readable only while the event is dispatched. Rejects with
 * NOT_A_FOLDER when the drop holds no folder.
 */
export function sourceFromDrop(dt: DataTransfer): Promise<DroppedFolder> {
  const items = [...dt.items].filter((i) => i.kind === 'file') as HandleItem[];
  // Both are asked for now, synchronously: later the items are gone.
  const handles = items.map((i) => (typeof i.getAsFileSystemHandle === 'function' ? i.getAsFileSystemHandle().catch(() => null) : Promise.resolve(null)));
  const entries = items.map((i) => (typeof i.webkitGetAsEntry === 'function' ? i.webkitGetAsEntry() : null));
  return (async () => {
    for (const h of await Promise.all(handles)) {
      if (h?.kind === 'directory') return { source: { kind: 'handle', handle: h as FileSystemDirectoryHandle }, name: h.name, emptyFolders: [] };
    }
    const dir = entries.find((e): e is FileSystemDirectoryEntry => !!e?.isDirectory);
    if (!dir) throw appError('NOT_A_FOLDER');
    const files: File[] = [];
    const relativePaths: string[] = [];
    const emptyFolders: string[] = [];
    await readEntries(dir, dir.name, files, relativePaths, emptyFolders);
    if (files.length === 0) throw appError('NOT_A_FOLDER', 'The dropped folder has no files; empty folders cannot be backed up from a drop in this browser.');
    return { source: { kind: 'files', files, relativePaths }, name: dir.name, emptyFolders };
  })();
}

/** Every file below `dir`, with its path from the dropped folder; folders with nothing in them noted. */
async function readEntries(dir: FileSystemDirectoryEntry, path: string, files: File[], paths: string[], empty: string[]): Promise<void> {
  const reader = dir.createReader();
  const children: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    children.push(...batch);
  }
  if (children.length === 0) empty.push(path);
  for (const c of children) {
    if (c.isDirectory) await readEntries(c as FileSystemDirectoryEntry, `${path}/${c.name}`, files, paths, empty);
    else if (c.isFile) {
      files.push(await new Promise<File>((resolve, reject) => (c as FileSystemFileEntry).file(resolve, reject)));
      paths.push(`${path}/${c.name}`);
    }
  }
}
