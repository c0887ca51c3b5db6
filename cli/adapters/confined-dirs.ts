// The folders of a restore target that are known to be real directories below its root, so
// that every path the restore writes resolves inside the root. A path is only ever handed to
// the kernel once each of its folders was made here or checked with lstat (not a symlink):
// a symlink restored earlier, or one already in the target, is never followed (restic's
// restorer checks each parent the same way and removes a non-directory in a folder's place).
// Names are checked as path components first (core/data/node-name.ts).

import fs from 'node:fs';
import path from 'node:path';
import { assertSafePath } from '../../core/data/node-name';

export class ConfinedDirs {
  readonly #root: string;
  /** Folders (components joined by '/') known to be real directories; '' is the root. */
  readonly #known = new Set<string>();
  /** Known folders this restore made (they held nothing before it). */
  readonly #made = new Set<string>();

  constructor(root: string) {
    this.#root = root;
  }

  /** The absolute path of `p` (components below the root), its components checked. */
  abs(p: readonly string[]): string {
    assertSafePath(p);
    return path.join(this.#root, ...p);
  }

  /** Makes `dir` and its ancestors real directories (mode 0700 until their metadata is set). */
  ensure(dir: readonly string[]): void {
    if (!this.#known.has('')) {
      if (!fs.lstatSync(this.#root, { throwIfNoEntry: false })) this.#made.add('');
      fs.mkdirSync(this.#root, { recursive: true, mode: 0o700 });
      this.#known.add('');
    }
    if (dir.length === 0) return;
    assertSafePath(dir);
    // From the deepest known ancestor down (usually the parent): linear in the depth, so a tree
    // nested thousands of folders deep does not cost the cube of its depth.
    const known = this.#knownDepth(dir);
    if (known === dir.length) return;
    let key = dir.slice(0, known).join('/');
    let abs = path.join(this.#root, ...dir.slice(0, known));
    for (let i = known; i < dir.length; i++) {
      const parent = key;
      key = i === 0 ? dir[0]! : `${key}/${dir[i]!}`;
      abs = path.join(abs, dir[i]!);
      // In a folder this restore made, only this restore put anything: no need to look first.
      if (this.#made.has(parent) ? this.#mkdirNew(abs) : this.#makeReal(abs)) this.#made.add(key);
      this.#known.add(key);
    }
  }

  /**
   * Whether `dir` and its ancestors are real directories, checked (lstat) without making
   * anything: false when one is missing or is something else.
   */
  check(dir: readonly string[]): boolean {
    assertSafePath(dir);
    const known = this.#knownDepth(dir);
    let key = known > 0 ? dir.slice(0, known).join('/') : '';
    for (let i = known + 1; i <= dir.length; i++) {
      if (i > 0) key = i === 1 ? dir[0]! : `${key}/${dir[i - 1]!}`;
      // The root itself is the user's choice and may be a symlink to a folder; below it, nothing is followed.
      const st = (i === 0 ? fs.statSync : fs.lstatSync)(path.join(this.#root, ...dir.slice(0, i)), { throwIfNoEntry: false });
      if (!st?.isDirectory()) return false;
      this.#known.add(key);
    }
    return true;
  }

  /**
   * How many leading components of `dir` are known real directories (-1: not even the root),
   * looked up from the deepest, each key cut from the one below it: one lookup when `dir`
   * itself is known, two when its parent is.
   */
  #knownDepth(dir: readonly string[]): number {
    let key = dir.join('/');
    for (let n = dir.length; n > 0; n--) {
      if (this.#known.has(key)) return n;
      key = n === 1 ? '' : key.slice(0, key.length - dir[n - 1]!.length - 1);
    }
    return this.#known.has('') ? 0 : -1;
  }

  /** Whether this restore made `dir` (so nothing was in it before). */
  isNew(dir: readonly string[]): boolean {
    return this.#made.has(dir.join('/'));
  }

  /** The absolute path of `p`, every folder above it made real first. */
  inside(p: readonly string[]): string {
    this.ensure(p.slice(0, -1));
    return this.abs(p);
  }

  /** Whether `dir` was made or checked here (a directory whose metadata may be set). */
  isReal(dir: readonly string[]): boolean {
    return this.#known.has(dir.join('/'));
  }

  /** Forgets `p` (a symlink or file now stands there) and everything checked below it. */
  replaced(p: readonly string[]): void {
    const key = p.join('/');
    if (!this.#known.has(key)) return;
    for (const k of this.#known) if (k === key || k.startsWith(key + '/')) this.#known.delete(k);
    for (const k of this.#made) if (k === key || k.startsWith(key + '/')) this.#made.delete(k);
  }

  /** mkdir where nothing is expected; what this restore put there is checked as usual. */
  #mkdirNew(abs: string): boolean {
    try {
      fs.mkdirSync(abs, { mode: 0o700 });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      return this.#makeReal(abs);
    }
  }

  /** Makes `abs` a real directory; true when it was made (nothing was there). */
  #makeReal(abs: string): boolean {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(abs);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (st?.isDirectory()) return false;
    if (st) fs.unlinkSync(abs); // a file or symlink where a folder goes: removed, never followed
    fs.mkdirSync(abs, { mode: 0o700 });
    return true;
  }
}
