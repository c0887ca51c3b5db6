// A backend over the File System Access API: a folder the user picked (an external disk
// becomes an ordinary restic repository) or the origin-private file system
// (`navigator.storage.getDirectory()`). Same layout and temp-file discipline as restic's local
// backend (see ./local-layout.ts). Browser specifics and why each step is as it is: ./fsa.md.
// Permission prompts (`requestPermission`) belong to the app, not here.

import { CairnError, abortError, throwIfAborted } from '../errors';
import {
  bytesOf,
  handleString,
  type Backend,
  type FileInfo,
  type FileType,
  type Handle,
  type LoadOptions,
  type RequestOptions,
  type SaveData,
} from './backend';
import { DATA_SUBDIRS, TYPE_DIRS, isListableName, pathSegments, tempName } from './local-layout';
import { checkLoadOptions, resolveRange } from './range';
import { garbageMade } from '../memory/garbage';

export interface FsaBackendOptions {
  /** Requests handled well at once (default 4). */
  connections?: number;
  /** Shown to the user (default `fsa:<folder name>`). */
  location?: string;
}

/** `move()` is in Chrome, Edge, Firefox and Safari's OPFS but not yet in TypeScript's lib. */
type MovableFileHandle = FileSystemFileHandle & { move?(parent: FileSystemDirectoryHandle, name: string): Promise<void> };

/** The part of FileSystemSyncAccessHandle we use (typed here: it exists in dedicated workers only). */
interface SyncAccessHandle {
  truncate(size: number): void;
  write(buffer: Uint8Array<ArrayBufferLike>, options?: { at?: number }): number;
  read(buffer: Uint8Array<ArrayBufferLike>, options?: { at?: number }): number;
  getSize(): number;
  flush(): void;
  close(): void;
}
type WorkerFileHandle = FileSystemFileHandle & {
  createSyncAccessHandle?(options?: { mode?: 'readwrite' | 'read-only' | 'readwrite-unsafe' }): Promise<SyncAccessHandle>;
};

/** Ranges at least this long (or with a buffer to read into) go through a read-only sync access handle where one can be had. */
const SYNC_READ_MIN = 256 << 10;

/** A read-only sync access handle kept open for the next range of the same file. */
interface Reader {
  access: Promise<SyncAccessHandle | undefined>;
  /** Reads waiting on it or reading. */
  users: number;
  timer?: ReturnType<typeof setTimeout>;
  /** Taken out of the cache: closed once its last user is done, then this is called. */
  closing?: () => void;
}
/** An open reader unused this long is closed. */
const READER_IDLE_MS = 400;
/** Open readers kept at most (idle ones beyond it are closed, oldest first). */
const MAX_READERS = 16;

export class FsaBackend implements Backend {
  readonly location: string;
  readonly connections: number;
  readonly #root: FileSystemDirectoryHandle;
  #moveWorks = true;
  readonly #dirs = new Map<string, Promise<FileSystemDirectoryHandle>>();
  /** Sync access handles work (OPFS in a worker): undefined until the first write tries one. */
  #syncWrites: boolean | undefined;
  /** Read-only sync access handles work: undefined until the first large read tries one. */
  #syncReads: boolean | undefined;
  /**
   * Read-only sync access handles left open between reads of the same file, by handle
   * string: a ZIP or a restore reading a pack a range at a time opened and closed one for
   * every range, and in Chromium each close waits on the browser process (a fifth of a ZIP
   * download's engine time went to close(); bench/README.md). Closed when idle, before
   * anything writes or removes that file, and by close().
   */
  readonly #readers = new Map<string, Reader>();

  constructor(root: FileSystemDirectoryHandle, opts: FsaBackendOptions = {}) {
    this.#root = root;
    this.location = opts.location ?? `fsa:${root.name}`;
    this.connections = opts.connections ?? 4;
  }

  /** Makes the directory tree of a new repository; fails if `config` exists. */
  static async create(root: FileSystemDirectoryHandle, opts: FsaBackendOptions = {}): Promise<FsaBackend> {
    const be = new FsaBackend(root, opts);
    try {
      if (await root.getFileHandle('config').then(() => true, notFoundAsFalse)) {
        throw new CairnError('REPO_EXISTS', `a repository already exists in ${be.location}`, { op: 'create' });
      }
      for (const d of TYPE_DIRS) await root.getDirectoryHandle(d, { create: true });
      const data = await root.getDirectoryHandle('data', { create: true });
      for (let i = 0; i < DATA_SUBDIRS.length; i += 16) {
        await Promise.all(DATA_SUBDIRS.slice(i, i + 16).map((d) => data.getDirectoryHandle(d, { create: true })));
      }
    } catch (e) {
      throw domError(e, 'create', be.location);
    }
    return be;
  }

  async save(h: Handle, body: SaveData, opts: RequestOptions = {}): Promise<void> {
    throwIfAborted(opts.signal);
    const data = bytesOf(body);
    await this.#dropReader(handleString(h)); // an open reader would hold off the move into place
    const { dirs, name } = split(h);
    let dir: FileSystemDirectoryHandle | undefined;
    const tmp = tempName(name, randomHex());
    try {
      // Write a temp file and move it into place, so the final name never shows an empty or
      // half-written file, not even after a crash (getFileHandle({create}) makes an empty file).
      const [d, file] = await this.#inDir(dirs, true, async (d) => [d, (await d.getFileHandle(tmp, { create: true })) as MovableFileHandle] as const);
      dir = d;
      await this.#write(file, data, opts.signal);
      throwIfAborted(opts.signal); // the last moment to back out
      if (this.#moveWorks && typeof file.move === 'function') {
        try {
          await file.move(dir, name);
          return;
        } catch (e) {
          if (!isMoveUnsupported(e)) throw e;
          this.#moveWorks = false; // e.g. older Chrome outside the OPFS
        }
      }
      // No move(): write in place. The swap file keeps this atomic while the page lives,
      // but a crash before close() can leave an empty file under the final name.
      await this.#write(await dir.getFileHandle(name, { create: true }), data, opts.signal);
      await dir.removeEntry(tmp);
    } catch (e) {
      await dir?.removeEntry(tmp).catch(() => {});
      throw domError(e, 'save', handleString(h), opts.signal);
    }
  }

  /**
   * Writes a whole file. A sync access handle first where one can be had (OPFS files, in a
   * dedicated worker): it writes in place, where createWritable() copies the bytes into a swap
   * file and then again into the file on close() — for 16 MiB packs, about a tenth of a saver
   * worker's time. Picked folders refuse sync handles (InvalidStateError): createWritable().
   */
  async #write(file: WorkerFileHandle, data: Uint8Array, signal?: AbortSignal): Promise<void> {
    if (this.#syncWrites !== false && typeof file.createSyncAccessHandle === 'function') {
      let access: SyncAccessHandle | undefined;
      try {
        access = await file.createSyncAccessHandle();
        this.#syncWrites = true;
      } catch (e) {
        if (this.#syncWrites === true || !isSyncUnsupported(e)) throw e;
        this.#syncWrites = false;
      }
      if (access) return writeSync(access, data);
    }
    if (typeof file.createWritable !== 'function') {
      throw new CairnError('BACKEND_IO', 'this browser cannot write files here (no createWritable, not in a worker)', { op: 'save' });
    }
    const writable = await file.createWritable(); // starts empty (keepExistingData: false)
    try {
      await writable.write(data as Uint8Array<ArrayBuffer>);
      throwIfAborted(signal);
      await writable.close(); // commits the swap file
    } catch (e) {
      await writable.abort().catch(() => {});
      throw e;
    }
  }

  async load(h: Handle, opts: LoadOptions = {}): Promise<Uint8Array> {
    throwIfAborted(opts.signal);
    checkLoadOptions(h, opts);
    try {
      if (this.#syncReads !== false && ((opts.length ?? 0) >= SYNC_READ_MIN || opts.into)) {
        const bytes = await this.#readSync(h, opts);
        if (bytes) return bytes;
      }
      const handle = await this.#fileHandle(h);
      const file = await handle.getFile();
      const { start, end } = resolveRange(h, file.size, opts);
      const bytes = new Uint8Array(await file.slice(start, end).arrayBuffer());
      garbageMade(bytes.length); // a fresh buffer, dropped once its blobs are read
      throwIfAborted(opts.signal);
      // A File is a snapshot; if the file changed since, slice() reads short or fails.
      if (bytes.length !== end - start) throw new CairnError('BACKEND_IO', `short read of ${handleString(h)}`, { op: 'load', retryable: true });
      return bytes;
    } catch (e) {
      throw domError(e, 'load', handleString(h), opts.signal);
    }
  }

  /**
   * Reads a range through a read-only sync access handle (OPFS, in a dedicated worker), into
   * `opts.into` when it is big enough. A File read (slice().arrayBuffer()) copies every byte
   * through a blob pipe from the browser process and allocates fresh memory; this reads the
   * file in the worker's own thread, without that copy (bench/README.md). Undefined
   * when no such handle can be had (not OPFS, not a worker, or the file is locked for
   * writing, as a browser without the read-only mode locks it for every other handle).
   */
  async #readSync(h: Handle, opts: LoadOptions): Promise<Uint8Array | undefined> {
    const key = handleString(h);
    let r = this.#readers.get(key);
    if (!r) {
      this.#trimReaders();
      r = { access: this.#openReader(h), users: 0 };
      const opened = r;
      this.#readers.set(key, opened);
      // One that could not be had is not kept: the next read tries again.
      opened.access.then(
        (a) => void (a || this.#dropReader(key, opened)),
        () => this.#dropReader(key, opened),
      );
    }
    const reader = r;
    reader.users++;
    clearTimeout(reader.timer);
    try {
      const access = await reader.access;
      if (!access) return undefined;
      const { start, end } = resolveRange(h, access.getSize(), opts);
      const n = end - start;
      const mine = opts.into && opts.into.length >= n;
      const bytes = mine ? opts.into!.subarray(0, n) : new Uint8Array(n);
      if (!mine) garbageMade(n); // a fresh buffer, dropped once its blobs are read
      for (let at = 0; at < n;) {
        const got = access.read(bytes.subarray(at), { at: start + at });
        if (got <= 0) throw new CairnError('BACKEND_IO', `short read of ${handleString(h)}`, { op: 'load', retryable: true });
        at += got;
      }
      throwIfAborted(opts.signal);
      return bytes;
    } finally {
      if (--reader.users === 0) {
        const closing = reader.closing;
        if (closing) void closeReader(reader).then(closing);
        else reader.timer = setTimeout(() => this.#dropReader(key, reader), READER_IDLE_MS);
      }
    }
  }

  /** A read-only sync access handle on `h`; undefined where none can be had (see #readSync). */
  async #openReader(h: Handle): Promise<SyncAccessHandle | undefined> {
    const handle = await this.#fileHandle(h);
    if (typeof handle.createSyncAccessHandle !== 'function') {
      this.#syncReads = false; // not in a dedicated worker
      return undefined;
    }
    try {
      const access = await handle.createSyncAccessHandle({ mode: 'read-only' });
      this.#syncReads = true;
      return access;
    } catch (e) {
      if (isSyncUnsupported(e)) this.#syncReads = false;
      else if (domName(e) !== 'NoModificationAllowedError') throw e;
      return undefined;
    }
  }

  /**
   * Takes `r` (the cached reader of `key`, if given) out of the cache and closes it once
   * unused; resolves when it is closed (a save or remove of its file waits for that).
   */
  #dropReader(key: string, r: Reader | undefined = this.#readers.get(key)): Promise<void> {
    if (!r || this.#readers.get(key) !== r) return Promise.resolve();
    this.#readers.delete(key);
    clearTimeout(r.timer);
    if (r.users === 0) return closeReader(r);
    const reader = r;
    return new Promise((resolve) => (reader.closing = resolve));
  }

  /** Makes room for one more reader: idle ones beyond MAX_READERS - 1 are closed, oldest first. */
  #trimReaders(): void {
    for (const [key, r] of this.#readers) {
      if (this.#readers.size < MAX_READERS) return;
      if (r.users === 0) void this.#dropReader(key, r);
    }
  }

  async stat(h: Handle, opts: RequestOptions = {}): Promise<FileInfo> {
    throwIfAborted(opts.signal);
    try {
      const file = await this.#file(h);
      return { name: h.type === 'config' ? 'config' : h.name, size: file.size };
    } catch (e) {
      throw domError(e, 'stat', handleString(h), opts.signal);
    }
  }

  async *list(type: FileType, opts: RequestOptions = {}): AsyncIterable<FileInfo> {
    throwIfAborted(opts.signal);
    if (type === 'config') {
      const fi = await this.stat({ type, name: '' }, opts).catch((e: unknown) => (isNotFoundError(e) ? undefined : Promise.reject(e)));
      if (fi) yield fi;
      return;
    }
    try {
      const base = await this.#dir([type], false).catch((e: unknown) => (isNotFoundError(e) ? undefined : Promise.reject(e)));
      if (!base) return; // a missing type directory lists as empty, as in restic
      // `data` has one level of sub-directories; stray files beside them are ignored.
      const dirs = type === 'data' ? await subdirs(base) : [base];
      for (const dir of dirs) {
        for await (const entry of dir.values()) {
          throwIfAborted(opts.signal);
          if (entry.kind !== 'file' || !isListableName(entry.name)) continue;
          const size = await entry.getFile().then((f) => f.size, notFoundAsUndefined); // removed meanwhile
          if (size !== undefined) yield { name: entry.name, size };
        }
      }
    } catch (e) {
      throw domError(e, 'list', type, opts.signal);
    }
  }

  async remove(h: Handle, opts: RequestOptions = {}): Promise<void> {
    throwIfAborted(opts.signal);
    await this.#dropReader(handleString(h)); // an open reader would hold off removeEntry
    const { dirs, name } = split(h);
    try {
      await this.#inDir(dirs, false, (dir) => dir.removeEntry(name));
    } catch (e) {
      throw domError(e, 'remove', handleString(h), opts.signal);
    }
  }

  async removeTemps(h: Handle, opts: RequestOptions = {}): Promise<number> {
    throwIfAborted(opts.signal);
    const { dirs, name } = split(h);
    const prefix = tempName(name, '');
    try {
      return await this.#inDir(dirs, false, async (dir) => {
        const temps: string[] = [];
        for await (const entry of dir.values()) if (entry.kind === 'file' && entry.name.startsWith(prefix)) temps.push(entry.name);
        for (const t of temps) await dir.removeEntry(t);
        return temps.length;
      });
    } catch (e) {
      if (isNotFoundError(e)) return 0;
      throw domError(e, 'remove', handleString(h), opts.signal);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#readers.keys()].map((k) => this.#dropReader(k)));
  }

  /**
   * The directory handle for `path`, remembered once found: each step of a lookup is a round
   * trip to the browser process (~0.5 ms in Chromium), three of them for every pack read,
   * which made a re-backup of 2000 unchanged folders wait seconds on lookups alone.
   */
  #dir(path: readonly string[], create: boolean): Promise<FileSystemDirectoryHandle> {
    if (path.length === 0) return Promise.resolve(this.#root);
    const key = path.join('/');
    let dir = this.#dirs.get(key);
    if (!dir) {
      dir = this.#dir(path.slice(0, -1), create).then((parent) => parent.getDirectoryHandle(path[path.length - 1]!, { create }));
      this.#dirs.set(key, dir);
      dir.catch(() => this.#dirs.delete(key));
    }
    return dir;
  }

  /**
   * Runs `fn` in the directory `path`; should a remembered handle have gone stale (the folder
   * removed and made again by another program), it looks the path up afresh and tries once more.
   */
  async #inDir<T>(path: readonly string[], create: boolean, fn: (dir: FileSystemDirectoryHandle) => Promise<T>): Promise<T> {
    const remembered = this.#dirs.has(path.join('/'));
    try {
      return await fn(await this.#dir(path, create));
    } catch (e) {
      if (!remembered || !isNotFoundError(e)) throw e;
      this.#dirs.clear();
      return fn(await this.#dir(path, create));
    }
  }

  #file(h: Handle): Promise<File> {
    return this.#fileHandle(h).then((f) => f.getFile());
  }

  #fileHandle(h: Handle): Promise<WorkerFileHandle> {
    const { dirs, name } = split(h);
    return this.#inDir(dirs, false, (dir) => dir.getFileHandle(name));
  }
}

function split(h: Handle): { dirs: string[]; name: string } {
  const segments = pathSegments(h);
  return { dirs: segments.slice(0, -1), name: segments[segments.length - 1] as string };
}

async function subdirs(dir: FileSystemDirectoryHandle): Promise<FileSystemDirectoryHandle[]> {
  const out: FileSystemDirectoryHandle[] = [];
  for await (const entry of dir.values()) if (entry.kind === 'directory') out.push(entry);
  return out;
}

function writeSync(access: SyncAccessHandle, bytes: Uint8Array<ArrayBufferLike>): void {
  try {
    access.truncate(0);
    for (let at = 0; at < bytes.length;) {
      const n = access.write(bytes.subarray(at), { at });
      if (n <= 0) throw new DOMException(`wrote ${at} of ${bytes.length} bytes`, 'QuotaExceededError');
      at += n;
    }
    access.flush();
    const size = access.getSize();
    if (size !== bytes.length) throw new DOMException(`file holds ${size} of ${bytes.length} bytes written`, 'QuotaExceededError');
  } finally {
    access.close();
  }
}

/** A sync access handle refused because of where the file is (not OPFS) or the thread. */
function isSyncUnsupported(e: unknown): boolean {
  const n = domName(e);
  return n === 'InvalidStateError' || n === 'NotSupportedError' || n === 'SecurityError';
}

function randomHex(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
}

function domName(e: unknown): string | undefined {
  return e instanceof Error || (typeof DOMException !== 'undefined' && e instanceof DOMException) ? (e as Error).name : undefined;
}

function isNotFoundError(e: unknown): boolean {
  return (e instanceof CairnError && e.code === 'NOT_FOUND') || domName(e) === 'NotFoundError' || domName(e) === 'TypeMismatchError';
}

function notFoundAsFalse(e: unknown): false {
  if (isNotFoundError(e)) return false;
  throw e;
}

function notFoundAsUndefined(e: unknown): undefined {
  if (isNotFoundError(e)) return undefined;
  throw e;
}

function isMoveUnsupported(e: unknown): boolean {
  const name = domName(e);
  return name === 'NotSupportedError' || name === 'NotAllowedError' || name === 'InvalidModificationError' || e instanceof TypeError;
}

/** Maps a DOMException from the File System API to a CairnError; CairnErrors pass through. */
/** A File System Access rejection as a CairnError (restore targets use it too). */
export function domError(e: unknown, op: string, what: string, signal?: AbortSignal): CairnError {
  if (e instanceof CairnError) return e;
  if (signal?.aborted) return abortError(signal);
  const name = domName(e) ?? 'Error';
  const message = `${op} ${what}: ${e instanceof Error ? e.message : String(e)}`;
  const detail = { path: what, domError: name };
  if (isNotFoundError(e)) return new CairnError('NOT_FOUND', message, { op, cause: e, detail });
  switch (name) {
    case 'NotAllowedError': // permission not (or no longer) granted
    case 'SecurityError':
      return new CairnError('ACCESS_DENIED', message, { op, cause: e, detail });
    case 'QuotaExceededError':
      return new CairnError('QUOTA_EXCEEDED', message, { op, cause: e, detail });
    case 'AbortError': // not ours: Chrome's Safe Browsing check refused the write
      return new CairnError('BACKEND_IO', message, { op, cause: e, detail });
    default: // NoModificationAllowedError (file locked), InvalidStateError, I/O errors
      return new CairnError('BACKEND_IO', message, { op, cause: e, retryable: true, detail });
  }
}

/** Closes a reader's handle (if it was had); a close that fails leaves nothing to do. */
async function closeReader(r: Reader): Promise<void> {
  const access = await r.access.catch(() => undefined);
  try {
    access?.close();
  } catch {
    // already closed (the worker's handles go with it)
  }
}
