// An in-memory backend: for tests, and as scratch space in the browser when nothing should
// touch disk (restic has the same, internal/backend/mem). It copies bytes on the way in and
// out, so callers can reuse or mutate their buffers like with any real backend.

import { CairnError, throwIfAborted } from '../errors';
import {
  FILE_TYPES,
  bytesOf,
  handleString,
  objectPath,
  type Backend,
  type FileInfo,
  type FileType,
  type Handle,
  type LoadOptions,
  type RequestOptions,
  type SaveData,
} from './backend';
import { resolveRange } from './range';

export interface MemoryBackendOptions {
  /** What `connections` reports (default 4). */
  connections?: number;
  location?: string;
}

export class MemoryBackend implements Backend {
  readonly location: string;
  readonly connections: number;
  readonly #objects: Map<FileType, Map<string, Uint8Array>>;

  constructor(opts: MemoryBackendOptions = {}) {
    this.location = opts.location ?? 'mem:';
    this.connections = opts.connections ?? 4;
    this.#objects = new Map(FILE_TYPES.map((t) => [t, new Map()]));
  }

  async save(h: Handle, body: SaveData, opts: RequestOptions = {}): Promise<void> {
    throwIfAborted(opts.signal);
    const data = bytesOf(body);
    this.#bucket(h.type).set(key(h), data.slice());
  }

  async load(h: Handle, opts: LoadOptions = {}): Promise<Uint8Array> {
    throwIfAborted(opts.signal);
    const data = this.#get(h, 'load');
    const { start, end } = resolveRange(h, data.length, opts);
    if (opts.into && opts.into.length >= end - start) {
      // As the file backends do: the caller's buffer, so reusing it is exercised in tests.
      opts.into.set(data.subarray(start, end));
      return opts.into.subarray(0, end - start);
    }
    return data.slice(start, end);
  }

  async stat(h: Handle, opts: RequestOptions = {}): Promise<FileInfo> {
    throwIfAborted(opts.signal);
    return { name: key(h), size: this.#get(h, 'stat').length };
  }

  async *list(type: FileType, opts: RequestOptions = {}): AsyncIterable<FileInfo> {
    throwIfAborted(opts.signal);
    // Snapshot the entries so saves and removes during a listing are safe.
    const entries = [...this.#bucket(type)].map(([name, data]) => ({ name, size: data.length }));
    for (const fi of entries) {
      throwIfAborted(opts.signal);
      yield fi;
    }
  }

  async remove(h: Handle, opts: RequestOptions = {}): Promise<void> {
    throwIfAborted(opts.signal);
    if (!this.#bucket(h.type).delete(key(h))) throw notFound(h, 'remove');
  }

  async close(): Promise<void> {}

  #bucket(type: FileType): Map<string, Uint8Array> {
    const bucket = this.#objects.get(type);
    if (!bucket) throw new CairnError('INTERNAL', `unknown file type ${String(type)}`);
    return bucket;
  }

  #get(h: Handle, op: string): Uint8Array {
    const data = this.#bucket(h.type).get(key(h));
    if (!data) throw notFound(h, op);
    return data;
  }
}

function key(h: Handle): string {
  return h.type === 'config' ? 'config' : h.name;
}

function notFound(h: Handle, op: string): CairnError {
  return new CairnError('NOT_FOUND', `${objectPath(h)} does not exist`, { op, detail: { handle: handleString(h) } });
}
