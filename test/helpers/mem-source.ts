// A small in-memory SourceFS + FileContentReader for archiver unit tests: the archiver's
// input, built from a plain object, with counters for reads and directory listings.

import { CairnError } from '../../core/errors';
import { GoTime } from '../../core/data/go-time';
import { ModeDir, ModeSymlink } from '../../core/data/file-mode';
import type { FileContentReader, SourceEntry, SourceFS } from '../../core/archiver/source';

export type MemFile = { data: Uint8Array; mtime?: number; ctime?: number; inode?: number; mode?: number; unreadable?: boolean; growsBy?: number };
export type MemLink = { link: string };
export type MemDir = { [name: string]: MemNode };
export type MemNode = MemFile | MemLink | MemDir;

const isFile = (n: MemNode): n is MemFile => (n as MemFile).data instanceof Uint8Array;
const isLink = (n: MemNode): n is MemLink => typeof (n as MemLink).link === 'string';

/** 2024-03-01T12:00:00Z: every entry's default time. */
export const T0 = Date.UTC(2024, 2, 1, 12, 0, 0);

export class MemSource implements SourceFS, FileContentReader {
  root: MemDir;
  /** Reads per path (a file counts once per read() call). */
  readonly reads = new Map<string, number>();
  readonly listed = new Map<string, number>();

  constructor(root: MemDir) {
    this.root = root;
  }

  get totalReads(): number {
    let n = 0;
    for (const v of this.reads.values()) n += v;
    return n;
  }

  resetCounters(): void {
    this.reads.clear();
    this.listed.clear();
  }

  #find(path: string): MemNode | undefined {
    let n: MemNode = this.root;
    for (const c of this.components(path)) {
      if (isFile(n) || isLink(n)) return undefined;
      const next: MemNode | undefined = (n as MemDir)[c];
      if (next === undefined) return undefined;
      n = next;
    }
    return n;
  }

  #entry(path: string, n: MemNode): SourceEntry {
    const comps = this.components(path);
    const name = comps[comps.length - 1] ?? '';
    const t = (ms: number) => GoTime.fromMillis(ms);
    if (isFile(n)) {
      return {
        path,
        size: n.data.length,
        ref: path,
        node: {
          name,
          type: 'file',
          mode: n.mode ?? 0o644,
          mtime: t(n.mtime ?? T0),
          atime: t(n.mtime ?? T0),
          ctime: t(n.ctime ?? n.mtime ?? T0),
          uid: 1000,
          gid: 100,
          inode: BigInt(n.inode ?? 0) || undefined,
          size: n.data.length,
          links: 1,
        },
      };
    }
    if (isLink(n)) {
      return {
        path,
        size: 0,
        ref: path,
        node: { name, type: 'symlink', mode: (ModeSymlink | 0o777) >>> 0, mtime: t(T0), atime: t(T0), ctime: t(T0), uid: 1000, gid: 100, linkTarget: n.link },
      };
    }
    return {
      path,
      size: 0,
      ref: path,
      node: { name, type: 'dir', mode: (ModeDir | 0o755) >>> 0, mtime: t(T0), atime: t(T0), ctime: t(T0), uid: 1000, gid: 100 },
    };
  }

  async stat(path: string): Promise<SourceEntry> {
    const n = this.#find(path);
    if (!n) throw new CairnError('SOURCE_READ', `${path}: vanished before it could be read`, { detail: { path } });
    return this.#entry(path, n);
  }

  async readDir(dir: SourceEntry, onError: (path: string, e: unknown) => void): Promise<SourceEntry[]> {
    this.listed.set(dir.path, (this.listed.get(dir.path) ?? 0) + 1);
    const n = this.#find(dir.path);
    if (!n || isFile(n) || isLink(n)) {
      onError(dir.path, new CairnError('SOURCE_READ', `${dir.path}: not a directory`));
      return [];
    }
    // Deliberately not in name order: the archiver must sort.
    return Object.keys(n)
      .reverse()
      .map((name) => this.#entry(this.join([...this.components(dir.path), name]), n[name]!));
  }

  components(path: string): string[] {
    return path.split('/').filter((c) => c !== '' && c !== '.');
  }

  join(components: string[]): string {
    return '/' + components.join('/');
  }

  absolute(path: string): string {
    return this.join(this.components(path));
  }

  async *read(ref: unknown, size: number): AsyncIterable<Uint8Array> {
    const path = ref as string;
    this.reads.set(path, (this.reads.get(path) ?? 0) + 1);
    const n = this.#find(path);
    if (!n || !isFile(n) || n.unreadable) throw new CairnError('SOURCE_READ', `${path}: permission denied`, { detail: { path } });
    let data = n.data;
    if (n.growsBy) {
      data = new Uint8Array(n.data.length + n.growsBy);
      data.set(n.data);
    }
    void size;
    for (let o = 0; o < data.length; o += 1 << 20) yield data.subarray(o, Math.min(data.length, o + (1 << 20)));
  }
}
