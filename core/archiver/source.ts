// What the archiver reads from: a small filesystem interface with one implementation per
// runtime (Node fs in cli/adapters, File System Access / webkitdirectory in workers/).
// Metadata comes from the coordinator's SourceFS; file *contents* are read where the
// chunking happens (a worker), through a FileContentReader and an opaque, structured-
// cloneable FileRef (a path in Node, a File or FileSystemFileHandle in the browser).

import { CairnError } from '../errors';
import type { Node } from '../data/node';

export type FileRef = unknown;

/** A file-system entry with restic node metadata (no content/subtree yet). */
export interface SourceEntry {
  /** The path the SourceFS understands (absolute in Node, "/<picked folder>/…" in browsers). */
  path: string;
  node: Omit<Node, 'content' | 'subtree'>;
  /** Byte size for files (0 otherwise). */
  size: number;
  /** Handed to a FileContentReader to read a file's bytes. */
  ref: FileRef;
  /**
   * A fresh ref, for a source whose refs can go stale: a browser File taken while listing
   * refuses to be read once the file changed (SOURCE_READ with detail.domError
   * NotReadableError). The archiver then reads the file once more, as it is now.
   */
  reopen?: () => Promise<FileRef>;
  /**
   * The ref to read, for an entry whose `ref` is only a pointer that the coordinator resolves
   * more cheaply than a saver would: a browser file handle listed with sizes taken from
   * elsewhere (getFile() here, then the File is cloned to the saver within the process). Called
   * only for a file that is read; an unchanged file never is.
   */
  open?: () => Promise<FileRef>;
  /** A stream (standard input): its size is known only once read, so a different one is no change. */
  stream?: boolean;
}

export interface SourceFS {
  /** Metadata of one path (lstat: symlinks are not followed). */
  stat(path: string, signal?: AbortSignal): Promise<SourceEntry>;
  /** The entries of a directory (lstat of each), in any order; entries that cannot be
   *  read (vanished, no permission) are reported through onError and left out. A directory
   *  that cannot be listed at all either throws `unlistable(…)` (it is then left out of the
   *  snapshot with a warning, as restic leaves it out) or reports it and lists nothing. */
  readDir(dir: SourceEntry, onError: (path: string, e: unknown) => void, signal?: AbortSignal): Promise<SourceEntry[]>;
  /**
   * Optional, preferred by the walk when given with `entryOf`: a directory's entry names only
   * (no lstat), in any order, with readDir's errors for the directory itself. The walk then
   * takes each entry's metadata with `entryOf` when it comes to it (restic lstats as it goes,
   * too), so a folder of 200 000 files waits as 200 000 names, not 200 000 entries.
   */
  readNames?(dir: SourceEntry, signal?: AbortSignal): Promise<string[]>;
  /** The entry `name` of the directory `dir` (lstat); a SOURCE_READ error if it cannot be read (vanished, no permission). */
  entryOf?(dir: SourceEntry, name: string, signal?: AbortSignal): SourceEntry | Promise<SourceEntry>;
  /**
   * Optional, preferred over `entryOf` by the walk: the entries of `names` in `dir`, in that
   * order, each an entry or the SOURCE_READ error `entryOf` would have thrown. The walk asks a
   * few batches ahead of where it is, so a source can lstat elsewhere (another thread) while the
   * walk works on the entries before.
   */
  entriesOf?(dir: SourceEntry, names: string[], signal?: AbortSignal): Promise<(SourceEntry | CairnError)[]>;
  /** Splits a target into the path components restic records ("/home/u" → ["home","u"]). */
  components(path: string): string[];
  /** Joins components back into a path this SourceFS can stat. */
  join(components: string[]): string;
  /** Makes a target absolute the way restic records it in the snapshot's `paths`. */
  absolute(path: string): string;
}

export interface FileContentReader {
  /**
   * Streams a file's bytes in pieces (about 1 MiB; small files in one piece). Throws a
   * SOURCE_READ CairnError if the file cannot be opened or read.
   */
  read(ref: FileRef, size: number, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  /**
   * Optional, preferred when present: opens the file for reads into the caller's buffer, so
   * the saver reuses one buffer instead of allocating a piece per MiB (no garbage, no page
   * faults). Same errors as `read`.
   */
  open?(ref: FileRef, size: number, signal?: AbortSignal): OpenedFile | Promise<OpenedFile>;
}

export interface OpenedFile {
  /** Reads the next bytes into `buf` (from its start); returns how many, 0 at the end. */
  readInto(buf: Uint8Array): number | Promise<number>;
  /**
   * Optional: the whole file at once, where the reader holds it in memory anyway (a small
   * file read together with others). Called instead of readInto, never after it.
   */
  readAll?(): Promise<Uint8Array>;
  /**
   * A read that returns fewer bytes than asked is at the file's end, as for a regular file on
   * a local file system. The saver then skips the read that would return 0 when the file
   * ended where its listing said (a file that grew fills the read and is read on).
   */
  shortReadEnds?: boolean;
  close(): void | Promise<void>;
}

/** The error for a directory that cannot be listed at all (no permission, gone). */
export function unlistable(path: string, message: string, cause?: unknown): CairnError {
  return new CairnError('SOURCE_READ', message, { cause, detail: { path, unlistable: true } });
}

export function isUnlistable(e: unknown): e is CairnError {
  return e instanceof CairnError && e.code === 'SOURCE_READ' && e.detail['unlistable'] === true;
}
