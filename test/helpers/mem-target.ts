// A RestoreTarget in memory with everything a restore may ask of one (what is there, reading
// it back, removing, listing), logging each call, for the restorer's unit tests.

import type { Node } from '../../core/data/node';
import type { CreateOptions, ExistingEntry, FileReader, FileWriter, RestoreTarget } from '../../core/restorer/target';

export interface MemFile {
  data: Uint8Array;
  mtimeNs: bigint;
  closed: boolean;
}

export class FullMemTarget implements RestoreTarget {
  readonly files = new Map<string, MemFile>();
  readonly dirs = new Set<string>(['']);
  readonly links = new Map<string, string>();
  readonly meta = new Map<string, Node>();
  readonly events: string[] = [];
  /** Bytes written per file. */
  readonly written = new Map<string, number>();
  /** Flips the first byte of every write to this path (a disk that lies). */
  corruptWrites?: string;
  /** Paths whose creation fails. */
  failCreate?: (path: string) => boolean;
  clock = 1_000_000_000_000_000_000n;

  file(p: string, data: Uint8Array | string, mtimeNs = this.clock): void {
    this.files.set(p, { data: typeof data === 'string' ? new TextEncoder().encode(data) : data, mtimeNs, closed: true });
    for (let d = p.slice(0, p.lastIndexOf('/')); d; d = d.slice(0, Math.max(0, d.lastIndexOf('/')))) this.dirs.add(d);
  }

  text(p: string): string {
    return new TextDecoder().decode(this.files.get(p)!.data);
  }

  async mkdir(path: string[]): Promise<void> {
    this.dirs.add(path.join('/'));
    this.events.push(`mkdir ${path.join('/')}`);
  }

  async createFile(path: string[], size: number, opts?: CreateOptions): Promise<FileWriter> {
    const p = path.join('/');
    this.events.push(`create ${p}${opts?.keep ? ' keep' : ''}`);
    if (this.failCreate?.(p)) throw new Error(`${p}: permission denied`);
    const old = opts?.keep ? this.files.get(p)?.data : undefined;
    const data = new Uint8Array(size);
    if (old) data.set(old.subarray(0, size));
    const f: MemFile = { data, mtimeNs: (this.clock += 1000n), closed: false };
    this.files.set(p, f);
    return {
      write: async (offset, bytes) => {
        const copy = bytes.slice();
        if (this.corruptWrites === p) copy[0]! ^= 1;
        f.data.set(copy, offset);
        this.written.set(p, (this.written.get(p) ?? 0) + bytes.length);
        this.events.push(`write ${p} ${offset}`);
      },
      close: async () => {
        f.closed = true;
        this.events.push(`close ${p}`);
      },
      abort: async () => {
        f.closed = true;
        this.events.push(`abort ${p}`);
      },
    };
  }

  async symlink(path: string[], target: string): Promise<void> {
    this.links.set(path.join('/'), target);
    this.events.push(`symlink ${path.join('/')}`);
  }

  async setMetadata(path: string[], node: Node): Promise<void> {
    const p = path.join('/');
    this.meta.set(p, node);
    const f = this.files.get(p);
    if (f) f.mtimeNs = node.mtime.unixNanos();
    this.events.push(`meta ${p}`);
  }

  async stat(path: string[]): Promise<ExistingEntry | undefined> {
    const p = path.join('/');
    const f = this.files.get(p);
    if (f) return { type: 'file', size: f.data.length, mtimeNs: f.mtimeNs };
    if (this.dirs.has(p)) return { type: 'dir', size: 0, mtimeNs: 0n };
    if (this.links.has(p)) return { type: 'symlink', size: 0, mtimeNs: 0n };
    return undefined;
  }

  async openRead(path: string[]): Promise<FileReader> {
    const p = path.join('/');
    this.events.push(`read ${p}`);
    const f = this.files.get(p)!;
    return { read: async (offset, length) => f.data.slice(offset, offset + length), close: async () => {} };
  }

  async remove(path: string[], opts?: { recursive?: boolean }): Promise<void> {
    const p = path.join('/');
    this.events.push(`remove ${p}${opts?.recursive ? ' -r' : ''}`);
    const below = (k: string) => k === p || k.startsWith(p + '/');
    for (const m of [this.files, this.links]) for (const k of [...m.keys()]) if (below(k)) m.delete(k);
    for (const k of [...this.dirs]) if (below(k)) this.dirs.delete(k);
  }

  async list(path: string[]): Promise<string[]> {
    const p = path.join('/');
    const names = new Set<string>();
    for (const k of [...this.files.keys(), ...this.links.keys(), ...this.dirs]) {
      if (k === '' || k === p) continue;
      const rel = p === '' ? k : k.startsWith(p + '/') ? k.slice(p.length + 1) : undefined;
      if (rel !== undefined) names.add(rel.split('/')[0]!);
    }
    return [...names].sort();
  }
}
