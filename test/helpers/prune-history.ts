// Backup histories for prune's interop tests: a source folder changed step by step, one
// backup per step (by restic or cairn), the source kept as it was at each snapshot, then
// `restic forget --keep-last N`. What is left is what prune must keep, byte for byte.

import { createCipheriv } from 'node:crypto';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addKey } from '../../core/repository/keyfile';
import { TEST_KDF } from './test-kdf';
import { cairn, diffTrees, jsonMessage, ok, restic, TEST_ENV, type RunResult } from './cli';
import { openLocal } from './engine';

export interface History {
  repo: string;
  src: string;
  /** Kept snapshot ID → the source folder as it was when it was taken. */
  kept: Map<string, string>;
}

export type Step = (src: string) => Promise<void>;

/** `n` bytes of seeded noise (incompressible). */
export function noise(seed: number, n: number): Buffer {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n));
}

/** `n` bytes of seeded text (compresses well). */
export function text(seed: number, n: number): string {
  let s = '';
  for (let i = 0; s.length < n; i++) s += `line ${i} of file ${seed}: the quick brown fox jumps over the lazy dog\n`;
  return s.slice(0, n);
}

export const put = (path: string, data: string | Buffer) => writeFile(path, data);
export const del = (path: string) => rm(path, { force: true, recursive: true });

export interface HistoryOptions {
  /** Who makes the repository (default cairn: its test key derivation is cheap for both tools). */
  init?: 'restic' | 'cairn';
  /** Who backs up (default restic). */
  writer?: 'restic' | 'cairn';
  backupArgs?: string[];
  keepLast: number;
}

export async function makeHistory(dir: string, steps: Step[], opts: HistoryOptions): Promise<History> {
  const repo = join(dir, 'repo'),
    src = join(dir, 'src'),
    states = join(dir, 'states');
  await mkdir(src, { recursive: true });
  if (opts.init === 'restic') {
    await ok(restic(['-r', repo, 'init']));
    await cheapKey(repo);
  } else await ok(cairn(['-r', repo, 'init']));
  const snapshots: [string, string][] = [];
  for (const [i, step] of steps.entries()) {
    await step(src);
    const tool = opts.writer === 'cairn' ? cairn : restic;
    const out = await ok(tool(['-r', repo, 'backup', '--json', ...(opts.backupArgs ?? []), src]));
    const state = join(states, `s${i}`);
    await cp(src, state, { recursive: true });
    snapshots.push([jsonMessage(out.stdout, 'summary').snapshot_id as string, state]);
  }
  if (opts.keepLast < steps.length) await ok(restic(['-r', repo, 'forget', '--keep-last', String(opts.keepLast)]));
  return { repo, src, kept: new Map(snapshots.slice(-opts.keepLast)) };
}

/**
 * Replaces the key restic made (scrypt calibrated to take a good part of a second, for every
 * command of either tool) by one with test parameters; config and data stay restic's.
 */
async function cheapKey(repo: string): Promise<void> {
  const r = await openLocal(repo);
  await addKey(r.backend, r.key, TEST_ENV.RESTIC_PASSWORD, { username: 'test', hostname: 'test', created: '2024-01-01T00:00:00Z' }, TEST_KDF);
  await r.backend.remove({ type: 'keys', name: r.keyID });
}

/** restic check --read-data passes, and restic restores every kept snapshot as it was. */
export async function expectIntact(h: History, scratch: string): Promise<void> {
  const c = await restic(['-r', h.repo, 'check', '--read-data']);
  if (c.code !== 0 || !c.stdout.includes('no errors were found')) throw new Error(`restic check failed:\n${c.stdout}\n${c.stderr}`);
  for (const [id, state] of h.kept) {
    const target = join(scratch, `restore-${id.slice(0, 8)}`);
    await ok(restic(['-r', h.repo, 'restore', id, '--target', target]));
    const diff = await diffTrees(state, join(target, h.src));
    if (diff.length) throw new Error(`snapshot ${id.slice(0, 8)} restores differently:\n${diff.join('\n')}`);
    await del(target);
  }
}

/** The numbers of prune's statistics lines ("to repack: 3 blobs / 1.2 MiB" → blobs 3, size "1.2 MiB"), by label. */
export function pruneNumbers(r: RunResult): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const m = /^([a-z][a-z ]*[a-z]):\s+(.*)$/.exec(line);
    if (!m || !/\d/.test(m[2]!)) continue;
    let label = m[1]!;
    while (out.has(label)) label += "'"; // "to repack" / "to delete" appear twice (blobs, packs)
    out.set(label, m[2]!.replace(/\s+/g, ' '));
  }
  return out;
}

/** What restic's prune --dry-run says is left to do: [blobs to repack, blobs to delete, bytes in total prune]. */
export async function resticLeftToDo(repo: string, args: string[] = []): Promise<string[]> {
  const n = pruneNumbers(await ok(restic(['-r', repo, 'prune', '--dry-run', ...args])));
  return [n.get('to repack')!, n.get('to delete')!, n.get('total prune')!];
}

export const NOTHING_LEFT = ['0 blobs / 0 B', '0 blobs / 0 B', '0 blobs / 0 B'];
