// restic's "default" layout for directory-tree backends (local disk, File System Access):
// internal/backend/layout/layout_default.go. `objectPath()` in backend.ts names the files;
// this module adds what a directory tree needs on top: the directories `init` creates, a
// guard against handles that would escape the repository, and which directory entries a
// listing reports.

import { CairnError } from '../errors';
import { handleString, type FileType, type Handle } from './backend';

/** The top-level directories of a repository, one per file type except `config`. */
export const TYPE_DIRS: readonly Exclude<FileType, 'config'>[] = ['data', 'index', 'keys', 'locks', 'snapshots'];

/** `00`…`ff`: the sub-directories of `data/`, all made by `init` (restic 0.14 makes no `tmp/`). */
export const DATA_SUBDIRS: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Every directory (relative, `/`-separated) a new repository has, parents first. */
export function repositoryDirs(): string[] {
  return [...TYPE_DIRS, ...DATA_SUBDIRS.map((d) => `data/${d}`)];
}

/** Path segments of a handle's file: `['data', 'ab', 'ab…']`, `['keys', '…']`, `['config']`. */
export function pathSegments(h: Handle): string[] {
  checkHandle(h);
  if (h.type === 'config') return ['config'];
  if (h.type === 'data') return ['data', h.name.slice(0, 2), h.name];
  return [h.type, h.name];
}

const SAFE_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Rejects names that could escape the repository or that a listing would hide. Names are
 * 64-hex IDs in practice; anything of letters, digits, `-` and `_` is let through so tests
 * can use readable names. A `data` name needs at least 2 characters for its sub-directory.
 */
export function checkHandle(h: Handle): void {
  if (h.type === 'config') return;
  const ok = SAFE_NAME.test(h.name) && !isTempName(h.name) && (h.type !== 'data' || h.name.length >= 2);
  if (!ok) {
    throw new CairnError('INTERNAL', `invalid object name for ${handleString(h)}`, {
      detail: { handle: handleString(h) },
    });
  }
}

/**
 * Temporary files are named `<final name>-tmp-<random>` in the final directory, as restic's
 * local backend does, so a rename never crosses directories.
 */
export function tempName(finalName: string, random: string): string {
  return `${finalName}-tmp-${random}`;
}

export function isTempName(name: string): boolean {
  return name.includes('-tmp-');
}

/**
 * Whether a directory entry is an object to list: skips our (and restic's) temp files,
 * Chrome's `.crswap` write buffers and dot files such as `.DS_Store` on external disks.
 */
export function isListableName(name: string): boolean {
  return !name.startsWith('.') && !isTempName(name) && !name.endsWith('.crswap');
}
