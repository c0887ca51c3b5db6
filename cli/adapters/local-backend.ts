// A repository in a local directory, in restic's layout and with restic's write discipline
// (internal/backend/local/local.go, v0.14): write `<name>-tmp-<random>` next to the final
// file, fsync, rename, fsync the directory, then make the file read-only. Modes follow the
// repository: 0700/0600 (0400 once written), or group-readable if `config` is.

import { randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { CairnError, abortError, throwIfAborted } from '../../core/errors';
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
} from '../../core/backend/backend';
import { isListableName, pathSegments, repositoryDirs, tempName } from '../../core/backend/local-layout';
import { checkLoadOptions, resolveRange } from '../../core/backend/range';

export interface LocalBackendOptions {
  /** Requests handled well at once (restic's local default is 2). */
  connections?: number;
}

interface Modes {
  dir: number;
  file: number;
}

const DEFAULT_MODES: Modes = { dir: 0o700, file: 0o600 };

export class LocalBackend implements Backend {
  readonly location: string;
  readonly connections: number;
  readonly #modes: Modes;

  private constructor(dir: string, modes: Modes, opts: LocalBackendOptions) {
    this.location = dir;
    this.connections = opts.connections ?? 2;
    this.#modes = modes;
  }

  /** Opens a repository directory; whether it holds a repository is for the caller to find out (load `config`). */
  static async open(dir: string, opts: LocalBackendOptions = {}): Promise<LocalBackend> {
    const root = path.resolve(dir);
    return new LocalBackend(root, await deriveModes(root), opts);
  }

  /** Makes the directory tree of a new repository (restic's `Create`); fails if `config` exists. */
  static async create(dir: string, opts: LocalBackendOptions = {}): Promise<LocalBackend> {
    const be = await LocalBackend.open(dir, opts);
    const config = path.join(be.location, 'config');
    const exists = await fs.lstat(config).then(
      () => true,
      (e: unknown) => (errno(e) === 'ENOENT' ? false : Promise.reject(e)),
    );
    if (exists) throw new CairnError('REPO_EXISTS', `a repository already exists at ${be.location}`, { op: 'create' });
    try {
      await fs.mkdir(be.location, { recursive: true, mode: be.#modes.dir });
      for (const d of repositoryDirs()) await fs.mkdir(path.join(be.location, d), { recursive: true, mode: be.#modes.dir });
    } catch (e) {
      throw fsError(e, 'create', be.location);
    }
    return be;
  }

  async save(h: Handle, body: SaveData, opts: RequestOptions = {}): Promise<void> {
    throwIfAborted(opts.signal);
    const data = bytesOf(body);
    const final = this.#file(h);
    const dir = path.dirname(final);
    const tmp = path.join(dir, tempName(path.basename(final), randomBytes(8).toString('hex')));
    let file: fs.FileHandle | undefined;
    try {
      file = await fs.open(tmp, 'wx', 0o600).catch(async (e: unknown) => {
        if (errno(e) !== 'ENOENT') throw e;
        await fs.mkdir(dir, { recursive: true, mode: this.#modes.dir }); // a directory went missing
        return fs.open(tmp, 'wx', 0o600);
      });
      await file.writeFile(data, { signal: opts.signal });
      const syncSupported = await file.sync().then(
        () => true,
        (e: unknown) => (isUnsupported(e) ? false : Promise.reject(e)),
      );
      await file.close();
      file = undefined;
      // The last moment to back out: after the rename the object is saved.
      throwIfAborted(opts.signal);
      await fs.rename(tmp, final);
      if (syncSupported) await syncDir(dir);
    } catch (e) {
      await file?.close().catch(() => {});
      await fs.unlink(tmp).catch(() => {});
      throw fsError(e, 'save', handleString(h), opts.signal);
    }
    // Read-only against accidents; some file systems (exFAT, network mounts) refuse chmod.
    await fs.chmod(final, this.#modes.file & ~0o222).catch((e: unknown) => {
      if (!isPermission(e)) throw fsError(e, 'save', handleString(h));
    });
  }

  async load(h: Handle, opts: LoadOptions = {}): Promise<Uint8Array> {
    throwIfAborted(opts.signal);
    checkLoadOptions(h, opts);
    let file: fs.FileHandle | undefined;
    try {
      file = await fs.open(this.#file(h), 'r');
      const { start, end } = resolveRange(h, (await file.stat()).size, opts);
      const out = opts.into && opts.into.length >= end - start ? opts.into.subarray(0, end - start) : new Uint8Array(end - start);
      let done = 0;
      while (done < out.length) {
        throwIfAborted(opts.signal);
        const { bytesRead } = await file.read(out, done, Math.min(out.length - done, 1 << 24), start + done);
        if (bytesRead === 0) break; // the file shrank under us
        done += bytesRead;
      }
      if (done < out.length) throw new CairnError('BACKEND_IO', `short read of ${handleString(h)}`, { op: 'load', retryable: true });
      return out;
    } catch (e) {
      throw fsError(e, 'load', handleString(h), opts.signal);
    } finally {
      await file?.close().catch(() => {});
    }
  }

  async stat(h: Handle, opts: RequestOptions = {}): Promise<FileInfo> {
    throwIfAborted(opts.signal);
    try {
      const st = await fs.stat(this.#file(h));
      return { name: h.type === 'config' ? 'config' : h.name, size: st.size };
    } catch (e) {
      throw fsError(e, 'stat', handleString(h));
    }
  }

  async *list(type: FileType, opts: RequestOptions = {}): AsyncIterable<FileInfo> {
    throwIfAborted(opts.signal);
    if (type === 'config') {
      const fi = await this.stat({ type, name: '' }, opts).catch((e: unknown) => (isCairnNotFound(e) ? undefined : Promise.reject(e)));
      if (fi) yield fi;
      return;
    }
    const base = path.join(this.location, type);
    // `data` has one level of sub-directories; stray files beside them are ignored, as in restic.
    const dirs = type === 'data' ? (await readDir(base)).filter((e) => e.isDirectory()).map((e) => path.join(base, e.name)) : [base];
    for (const dir of dirs) {
      for (const entry of await readDir(dir)) {
        throwIfAborted(opts.signal);
        if (!entry.isFile() || !isListableName(entry.name)) continue;
        const size = await fs.stat(path.join(dir, entry.name)).then(
          (st) => st.size,
          (e: unknown) => (errno(e) === 'ENOENT' ? undefined : Promise.reject(fsError(e, 'list', type))), // removed meanwhile
        );
        if (size !== undefined) yield { name: entry.name, size };
      }
    }
  }

  async remove(h: Handle, opts: RequestOptions = {}): Promise<void> {
    throwIfAborted(opts.signal);
    const file = this.#file(h);
    try {
      await fs.unlink(file).catch(async (e: unknown) => {
        // Windows refuses to delete read-only files; restic resets the flag first.
        if (!isPermission(e)) throw e;
        await fs.chmod(file, 0o666);
        await fs.unlink(file);
      });
    } catch (e) {
      throw fsError(e, 'remove', handleString(h));
    }
  }

  async close(): Promise<void> {}

  #file(h: Handle): string {
    return path.join(this.location, ...pathSegments(h));
  }
}

/** restic's DeriveModesFromFileInfo: group access if the config file is group-readable. */
async function deriveModes(root: string): Promise<Modes> {
  const st = await fs.stat(path.join(root, 'config')).catch(() => undefined);
  if (!st || (st.mode & 0o040) === 0) return DEFAULT_MODES;
  return { dir: DEFAULT_MODES.dir | 0o070, file: DEFAULT_MODES.file | 0o060 };
}

async function readDir(dir: string): Promise<Dirent[]> {
  try {
    return await fs.readdir(dir, { withFileTypes: true });
  } catch (e) {
    if (errno(e) === 'ENOENT') return []; // a missing type directory lists as empty, as in restic
    throw fsError(e, 'list', dir);
  }
}

async function syncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return; // directories cannot be opened for fsync there
  const d = await fs.open(dir, constants.O_RDONLY);
  try {
    await d.sync().catch((e: unknown) => {
      if (!isUnsupported(e)) throw e;
    });
  } finally {
    await d.close();
  }
}

function errno(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isUnsupported(e: unknown): boolean {
  const code = errno(e);
  return code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EINVAL' || code === 'ENOENT';
}

function isPermission(e: unknown): boolean {
  const code = errno(e);
  return code === 'EPERM' || code === 'EACCES';
}

function isCairnNotFound(e: unknown): boolean {
  return e instanceof CairnError && e.code === 'NOT_FOUND';
}

/** Maps a Node file-system error to a CairnError; CairnErrors pass through. */
function fsError(e: unknown, op: string, what: string, signal?: AbortSignal): CairnError {
  if (e instanceof CairnError) return e;
  if (signal?.aborted) return abortError(signal);
  const code = errno(e);
  const message = `${op} ${what}: ${e instanceof Error ? e.message : String(e)}`;
  const detail = { path: what, errno: code };
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new CairnError('NOT_FOUND', message, { op, cause: e, detail });
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new CairnError('ACCESS_DENIED', message, { op, cause: e, detail });
    case 'ENOSPC':
    case 'EDQUOT':
      return new CairnError('QUOTA_EXCEEDED', message, { op, cause: e, detail });
    default:
      return new CairnError('BACKEND_IO', message, { op, cause: e, retryable: true, detail });
  }
}
