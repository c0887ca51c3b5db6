// The interop source tree: awkward names, sizes around the chunker's limits (512 KiB min,
// 8 MiB max), empty files and directories, a symlink, unusual modes and fixed mtimes.
// Deterministic: contents come from a seeded AES-CTR keystream or a counter text, so every
// run (and every machine) creates byte-identical files. `scale` shrinks the big files for
// fast tests; 0 B and 1 B files stay as they are.

import { createCipheriv, createHash } from 'node:crypto';
import { chmod, lutimes, mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface WeirdTreeOptions {
  /** Multiplies the large file sizes (default 1 = full size, e.g. 1/64 for unit tests). */
  scale?: number;
  /** Seed for the random contents (default 1). */
  seed?: number;
  /** Also create a file whose name is not valid UTF-8 (browsers cannot make one). */
  invalidUtf8?: boolean;
  /** mtime/atime for every entry, in unix seconds (default 1600000000 = 2020-09-13T12:26:40Z). */
  mtime?: number;
}

export interface WeirdTree {
  /** Regular files, paths relative to the root with '/' separators. */
  files: { path: string; size: number }[];
  /** Directories below the root, parents before children. */
  dirs: string[];
  symlinks: { path: string; target: string }[];
  /** Files created from raw bytes (invalidUtf8 option): relative path bytes. */
  rawFiles: { path: Buffer; size: number }[];
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** Names that stress restic's double escaping; all valid UTF-8. */
export const WEIRD_NAMES: readonly string[] = [
  'with space',
  ' leading and trailing ',
  'quote"inside',
  'back\\slash',
  'tab\there',
  'new\nline',
  'ctrl\x01char',
  'del\x7fchar',
  'cafe\u0301 (NFD)',
  'caf\u00e9 (NFC)',
  '<html> & "json"',
  'emoji \u{1F9CB} unicode-13',
  'emoji \u{1FAE0} unicode-14',
  'nbsp\u00a0soft\u00adhyphen',
  'line\u2028separator',
  'bom\ufeffzwsp\u200b',
  'private\ue000use',
  'ideographic\u3000space',
  '\u65e5\u672c\u8a9e',
  '-dash-first',
  '%41 percent',
];

function randomBytes(seed: number, label: string, size: number): Buffer {
  const key = createHash('sha256').update(`weird-tree:${seed}:${label}`).digest();
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(size)), cipher.final()]);
}

function compressibleBytes(size: number): Buffer {
  const out = Buffer.alloc(size);
  let off = 0;
  for (let i = 0; off < size; i++) {
    off += out.write(`line ${String(i).padStart(9, '0')}: the quick brown fox jumps over the lazy dog\n`, off);
  }
  return out;
}

export async function makeWeirdTree(root: string, opts: WeirdTreeOptions = {}): Promise<WeirdTree> {
  const scale = opts.scale ?? 1;
  const seed = opts.seed ?? 1;
  const mtime = opts.mtime ?? 1_600_000_000;
  const scaled = (n: number) => Math.max(2, Math.round(n * scale));
  const tree: WeirdTree = { files: [], dirs: [], symlinks: [], rawFiles: [] };

  const dir = async (rel: string) => {
    await mkdir(join(root, rel), { recursive: true });
    tree.dirs.push(rel);
  };
  const file = async (rel: string, data: Buffer, mode = 0o644) => {
    await writeFile(join(root, rel), data);
    await chmod(join(root, rel), mode);
    tree.files.push({ path: rel, size: data.length });
  };

  await mkdir(root, { recursive: true });
  for (const d of ['empty-dir', 'nested', 'nested/a', 'nested/a/b', 'nested/a/b/c', 'nested/a/empty', 'sizes', 'names', 'modes']) {
    await dir(d);
  }
  await file('nested/a/b/c/deep.txt', Buffer.from('deep\n'));
  await file('top.txt', Buffer.from('top level\n'));

  await file('sizes/0-bytes', Buffer.alloc(0));
  await file('sizes/1-byte', Buffer.from('x'));
  await file('sizes/511-KiB', randomBytes(seed, '511k', scaled(511 * KiB)));
  await file('sizes/512-KiB', randomBytes(seed, '512k', scaled(512 * KiB)));
  await file('sizes/8-MiB-plus-1', randomBytes(seed, '8m+1', scaled(8 * MiB) + 1));
  await file('sizes/20-MiB-random', randomBytes(seed, '20m', scaled(20 * MiB)));
  await file('sizes/20-MiB-text', compressibleBytes(scaled(20 * MiB)));

  for (const [i, name] of WEIRD_NAMES.entries()) {
    await file(`names/${name}`, Buffer.from(`file ${i}: ${name}\n`));
  }
  await dir('names/dir "quoted" \\ <&>');
  await file('names/dir "quoted" \\ <&>/inner\tfile', Buffer.from('inner\n'));

  await file('modes/private-0600', Buffer.from('secret\n'), 0o600);
  await file('modes/script-0755', Buffer.from('#!/bin/sh\necho hi\n'), 0o755);

  await symlink('sizes/1-byte', join(root, 'link-to-1-byte'));
  tree.symlinks.push({ path: 'link-to-1-byte', target: 'sizes/1-byte' });

  if (opts.invalidUtf8) {
    const rel = Buffer.concat([Buffer.from('names/bad-utf8-'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('.bin')]);
    const data = Buffer.from('invalid name\n');
    await writeFile(Buffer.concat([Buffer.from(root + '/'), rel]), data);
    await chmod(Buffer.concat([Buffer.from(root + '/'), rel]), 0o644);
    tree.rawFiles.push({ path: rel, size: data.length });
  }

  // Fixed times last, children before parents (writing into a directory changes its mtime).
  for (const f of tree.files) await utimes(join(root, f.path), mtime, mtime);
  for (const f of tree.rawFiles) await utimes(Buffer.concat([Buffer.from(root + '/'), f.path]), mtime, mtime);
  for (const l of tree.symlinks) await lutimes(join(root, l.path), mtime, mtime);
  for (const d of [...tree.dirs].reverse()) {
    await chmod(join(root, d), 0o755);
    await utimes(join(root, d), mtime, mtime);
  }
  await chmod(root, 0o755);
  await utimes(root, mtime, mtime);
  return tree;
}
