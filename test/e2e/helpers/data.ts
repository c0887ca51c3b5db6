// Deterministic source trees for the e2e tests: file contents from a seeded xorshift generator,
// so Node (restic, expected digests) and the browser (OPFS, via base64) see the same bytes.

import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

export interface FileSpec {
  /** Relative path with '/' separators, e.g. "docs/a.txt". */
  path: string;
  /** Text content, or `size` bytes from `seed`. */
  text?: string;
  size?: number;
  seed?: number;
}

export function bytesOf(f: FileSpec): Uint8Array {
  if (f.text !== undefined) return new TextEncoder().encode(f.text);
  const out = new Uint8Array(f.size ?? 0);
  let x = (f.seed ?? 1) >>> 0 || 1;
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** path → SHA-256 of the contents. */
export function digests(tree: FileSpec[]): Record<string, string> {
  return Object.fromEntries(tree.map((f) => [f.path, sha256(bytesOf(f))]));
}

/** A small tree with a multi-chunk file (> restic's 512 KiB minimum chunk), text files, a subfolder. */
export function sampleTree(seed = 1): FileSpec[] {
  return [
    { path: 'readme.txt', text: `Cairn e2e sample ${seed}\n` },
    { path: 'notes/todo.md', text: '# To do\n\n- back up\n- restore\n' },
    { path: 'notes/deep/leaf.txt', text: 'leaf\n' },
    { path: 'photos/big.bin', size: 2_500_000, seed: seed * 7 + 1 },
    { path: 'photos/small.bin', size: 40_000, seed: seed * 7 + 2 },
    { path: 'ünïcode name.txt', text: 'unicode file name\n' },
  ];
}

export async function materialize(tree: FileSpec[], dir: string): Promise<void> {
  for (const f of tree) {
    const p = join(dir, ...f.path.split('/'));
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, bytesOf(f));
  }
}

/** Every regular file under `dir`: relative path → SHA-256. */
export async function digestDir(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out[relative(dir, p).split('\\').join('/')] = sha256(await readFile(p));
    }
  };
  await walk(dir);
  return out;
}

export function toBase64(b: Uint8Array): string {
  return Buffer.from(b).toString('base64');
}
