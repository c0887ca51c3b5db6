// The dumb storage layer, in restic's spirit (internal/backend/backend.go): it stores named
// byte strings and knows nothing of crypto, packs or indexes. Repository code depends on the
// narrowest slice of this it needs.

import { CairnError } from '../errors';

export type FileType = 'config' | 'keys' | 'locks' | 'snapshots' | 'index' | 'data';

export const FILE_TYPES: readonly FileType[] = ['config', 'keys', 'locks', 'snapshots', 'index', 'data'];

/** Names one stored object. `name` is the 64-hex ID (ignored for `config`). */
export interface Handle {
  type: FileType;
  name: string;
}

export interface FileInfo {
  name: string;
  size: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface LoadOptions extends RequestOptions {
  /** Byte offset to start at (default 0). */
  offset?: number;
  /** Number of bytes to read; 0 or undefined means "to the end". */
  length?: number;
  /**
   * A buffer the backend may read into instead of allocating (a hint: backends that cannot
   * ignore it). When used, the result is a view of it from its start.
   */
  into?: Uint8Array;
}

/**
 * Bytes a saver took a copy of (`Saver.prepare`), ready to send: saving it sends that copy, on
 * every attempt, so whoever prepared it may reuse its buffer at once. Only the saver that made
 * it (or a wrapper of that saver) can save it.
 */
export interface PreparedBody {
  readonly length: number;
  readonly prepared: unknown;
}

export type SaveData = Uint8Array | PreparedBody;

export interface Saver {
  /**
   * Stores `data` under `h`, atomically: a reader sees all of it or nothing. Objects are
   * write-once; saving an existing name again must not corrupt it (content-addressed names
   * mean the bytes are the same).
   */
  save(h: Handle, data: SaveData, opts?: RequestOptions): Promise<void>;
  /**
   * Optional: copies `data` into a body of the saver's own for a later `save`, where holding
   * the caller's buffer until the save settles costs memory and the copy is made anyway (a
   * browser's fetch takes a Blob of the bytes): a pack's buffer can take the next pack while
   * the last one uploads.
   */
  prepare?(data: Uint8Array): Promise<PreparedBody>;
}

/** A wrapper's `prepare`: the wrapped saver's, where it has one (spread into the wrapper). */
export function preparing(inner: Saver): Pick<Saver, 'prepare'> {
  return inner.prepare ? { prepare: (data) => inner.prepare!(data) } : {};
}

/** `data` as bytes; a prepared body here means it reached a saver that did not prepare it. */
export function bytesOf(data: SaveData): Uint8Array {
  if (data instanceof Uint8Array) return data;
  throw new CairnError('INTERNAL', 'a prepared body reached a backend that did not prepare it');
}

export interface Loader {
  /** Reads all of an object or a byte range of it. Throws a `NOT_FOUND` CairnError if absent. */
  load(h: Handle, opts?: LoadOptions): Promise<Uint8Array>;
}

export interface Stater {
  stat(h: Handle, opts?: RequestOptions): Promise<FileInfo>;
}

export interface Lister {
  /** Lists every object of a type (for `data`: across the 256 sub-directories). Order unspecified. */
  list(type: FileType, opts?: RequestOptions): AsyncIterable<FileInfo>;
}

export interface Remover {
  /** Removes an object. Removing one that does not exist throws `NOT_FOUND`. */
  remove(h: Handle, opts?: RequestOptions): Promise<void>;
}

export interface Backend extends Saver, Loader, Stater, Lister, Remover {
  /** Human-readable location, e.g. `/srv/repo` or `s3:http://host/bucket/prefix`. */
  readonly location: string;
  /** Number of requests this backend handles well at once (the archiver sizes its queues by it). */
  readonly connections: number;
  close(): Promise<void>;
  /**
   * Removes the temp files a save of `h` left when it never finished (its tab closed mid-write)
   * and returns how many; only for backends that write through temp files. Call it only when
   * no one else can be saving `h`.
   */
  removeTemps?(h: Handle, opts?: RequestOptions): Promise<number>;
}

/** restic's object path for a handle: `data/ab/abcd…`, `keys/<id>`, `config`. */
export function objectPath(h: Handle): string {
  if (h.type === 'config') return 'config';
  if (h.type === 'data') return `data/${h.name.slice(0, 2)}/${h.name}`;
  return `${h.type}/${h.name}`;
}

export function handleString(h: Handle): string {
  return h.type === 'config' ? 'config' : `${h.type}/${h.name}`;
}
