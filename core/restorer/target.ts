// Where a restore writes: one implementation per runtime (Node fs in cli/adapters, a picked
// directory via File System Access in workers/). Paths are components relative to the
// target's root. The optional methods let a restore look at what the target already holds
// (restic's --overwrite modes and resuming, --delete, --verify, removing a failed file); a
// target without them is treated as empty.

import type { Node } from '../data/node';

export interface FileWriter {
  /** Writes bytes at an offset; writes may arrive in any order. */
  write(offset: number, data: Uint8Array): Promise<void>;
  close(): Promise<void>;
  /**
   * Optional: applies the node's metadata (as setMetadata would) and closes, in one step on
   * the open file. The restorer prefers it over close() + setMetadata().
   */
  finish?(node: Node): Promise<void>;
  /** Optional: closes, discarding what was written where the target can (a failed file). */
  abort?(): Promise<void>;
}

export interface CreateOptions {
  /**
   * Keep what the file holds (restic's partial-file handling): only its size is set, so blobs
   * found intact in it need not be written again. Without it the file starts empty.
   */
  keep?: boolean;
  /** How many writes are coming (a target may stage a file written in several). */
  writes?: number;
}

/** What a path of the target holds now, seen without following a symlink. */
export interface ExistingEntry {
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
  /** Modification time, nanoseconds since the epoch. */
  mtimeNs: bigint;
}

export interface FileReader {
  /** Up to `length` bytes from `offset` (fewer at the end of the file). */
  read(offset: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

export interface RestoreTarget {
  mkdir(path: string[]): Promise<void>;
  /** Creates (or truncates, or with `keep` resizes) a file of the given final size. */
  createFile(path: string[], size: number, opts?: CreateOptions): Promise<FileWriter>;
  symlink(path: string[], target: string): Promise<void>;
  /** Applies mode, times and (where permitted) ownership after the content is written. */
  setMetadata(path: string[], node: Node): Promise<void>;
  /** What is at `path`, or undefined when nothing is. */
  stat?(path: string[]): Promise<ExistingEntry | undefined>;
  /** Whether this restore made the folder `dir`, so that nothing was in it before. */
  isNew?(dir: string[]): boolean;
  /** Opens the regular file at `path` for reading (never through a symlink). */
  openRead?(path: string[]): Promise<FileReader>;
  /**
   * Removes what is at `path` (nothing there is fine): a file, a symlink itself (never what it
   * points to), an empty folder, or with `recursive` a folder with everything in it.
   */
  remove?(path: string[], opts?: { recursive?: boolean }): Promise<void>;
  /** The names in the folder at `path`. */
  list?(path: string[]): Promise<string[]>;
}

/** Metadata on the open file where the target can, else after closing it. */
export async function finishWriter(w: FileWriter, target: RestoreTarget, path: string[], node: Node): Promise<void> {
  if (w.finish) return w.finish(node);
  await w.close();
  await target.setMetadata(path, node);
}
