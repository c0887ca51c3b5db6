// What a restore does with what the target already holds at a path: restic 0.18's --overwrite
// (internal/restorer/restorer.go shouldOverwrite, withOverwriteCheck, verifyFile).
//   always      replace it, but read an existing file first and keep the blobs found intact
//               in it (only the others are written again); an intact file is left as is
//   if-changed  as always, but a file of the right size and modification time is taken as
//               intact without reading it
//   if-newer    only when the snapshot's entry is newer than what is there
//   never       never touch an existing entry
// Existing content is compared blob by blob: the bytes at each blob's offset hash to its ID.

import { CairnError } from '../errors';
import type { Node } from '../data/node';
import { hashID } from '../id';
import type { Repository } from '../repository/repository';
import type { ExistingEntry, FileReader, RestoreTarget } from './target';

export type OverwriteMode = 'always' | 'if-changed' | 'if-newer' | 'never';

export const OVERWRITE_MODES: readonly OverwriteMode[] = ['always', 'if-changed', 'if-newer', 'never'];

/** What an existing file holds, blob by blob. */
export interface ExistingContent {
  /** matches[i]: the bytes where blob i goes already are blob i. */
  matches: boolean[];
  sizeMatches: boolean;
}

export type FileDecision =
  /** Left as it is (never, if-newer): not even its metadata is set. */
  | { kind: 'skip' }
  /** Its content is already the snapshot's: only its metadata is set. */
  | { kind: 'unchanged' }
  /** Written, keeping the blobs `existing` found intact (none when absent). */
  | { kind: 'restore'; existing?: ExistingContent };

/**
 * Times set through Node's APIs travel as a double of seconds (~120 ns off at today's dates)
 * and libuv cuts them to whole microseconds, so a time this restore set reads back up to
 * ~1.1 µs off the snapshot's.
 */
const MTIME_SLACK_NS = 2000n;

const sameTime = (a: bigint, b: bigint) => (a > b ? a - b : b - a) < MTIME_SLACK_NS;

function needsRestore(c: ExistingContent | undefined): boolean {
  return !c || !c.sizeMatches || c.matches.some((m) => !m);
}

/** restic shouldOverwrite: whether the entry at a path may be replaced by `node`. */
export function mayReplace(mode: OverwriteMode, node: Node, existing: ExistingEntry | undefined): boolean {
  if (!existing || mode === 'always' || mode === 'if-changed') return true;
  if (mode === 'never') return false;
  return node.mtime.unixNanos() > existing.mtimeNs + MTIME_SLACK_NS;
}

/** What the target holds at `path` before this restore writes it (nothing, in a folder it made). */
export async function existingAt(target: RestoreTarget, path: string[]): Promise<ExistingEntry | undefined> {
  if (!target.stat || target.isNew?.(path.slice(0, -1))) return undefined;
  return target.stat(path);
}

/** What to do with the file `node` at `path`, looking at what the target holds there. */
export async function decideFile(repo: Repository, target: RestoreTarget, path: string[], node: Node, mode: OverwriteMode): Promise<FileDecision> {
  const existing = await existingAt(target, path);
  if (!mayReplace(mode, node, existing)) return { kind: 'skip' };
  if (existing?.type !== 'file' || !target.openRead) return { kind: 'restore' };
  const size = node.size ?? 0;
  if (mode === 'if-changed' && existing.size === size && sameTime(existing.mtimeNs, node.mtime.unixNanos())) return { kind: 'unchanged' };
  let content: ExistingContent | undefined;
  try {
    content = await readExisting(repo, target, path, node, existing.size);
  } catch (e) {
    if (e instanceof CairnError && e.code === 'ABORTED') throw e;
    // Unreadable: written from scratch (restic: "if a file fails to verify, ... restoring from scratch").
  }
  return needsRestore(content) ? { kind: 'restore', existing: content } : { kind: 'unchanged' };
}

async function readExisting(repo: Repository, target: RestoreTarget, path: string[], node: Node, size: number): Promise<ExistingContent> {
  const reader = await target.openRead!(path);
  try {
    return await compareContent(repo, reader, node, size);
  } finally {
    await reader.close();
  }
}

/**
 * Compares a file's bytes with `node`'s blobs (restic verifyFile without failFast). `size` is
 * the file's size on disk; blobs past its end do not match.
 */
async function compareContent(repo: Repository, reader: FileReader, node: Node, size: number): Promise<ExistingContent> {
  const content = node.content ?? [];
  const matches = content.map(() => false);
  let offset = 0;
  for (const [i, id] of content.entries()) {
    const length = repo.index.plainSize('data', id);
    if (length === undefined) throw new CairnError('BLOB_NOT_FOUND', `data blob ${id.slice(0, 8)} is not in any index`, { detail: { blob: id } });
    if (offset + length > size) break;
    const bytes = await reader.read(offset, length);
    matches[i] = bytes.length === length && (await hashID(bytes)) === id;
    offset += length;
  }
  return { matches, sizeMatches: size === (node.size ?? 0) };
}

/**
 * restic VerifyFiles for one file: its bytes on disk must be exactly `node`'s content. Returns
 * what differs, or undefined when the file is right.
 */
export async function verifyWritten(repo: Repository, target: RestoreTarget, path: string[], node: Node): Promise<string | undefined> {
  const where = '/' + path.join('/');
  const existing = await target.stat!(path);
  if (existing?.type !== 'file') return `expected ${where} to be a regular file`;
  if (existing.size !== (node.size ?? 0)) return `invalid file size for ${where}: expected ${node.size ?? 0}, got ${existing.size}`;
  const reader = await target.openRead!(path);
  try {
    const c = await compareContent(repo, reader, node, existing.size);
    const bad = c.matches.indexOf(false);
    if (bad < 0) return undefined;
    let offset = 0;
    for (const id of (node.content ?? []).slice(0, bad)) offset += repo.index.plainSize('data', id) ?? 0;
    return `unexpected content in ${where}, starting at offset ${offset}`;
  } finally {
    await reader.close();
  }
}
