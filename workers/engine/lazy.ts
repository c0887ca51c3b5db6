// What the engine loads on first use, and who it is in lock files and new key files.

import type { Sha256Use } from '../sha256-choice';
import * as db from '../cache/db';
import type { Owner } from './open';
import { engineOwner, removeDeadEngineLocks } from './pack-journal';
import type { Session } from './session';

/** Backup, restore and download code, loaded on first use (see ./heavy). */
export const heavy = () => import('./heavy');
/** Check and the selection's ZIP and restore, loaded on first use (see ./heavy-tools). */
export const heavyTools = () => import('./heavy-tools');

/**
 * The heavy code with the faster SHA-256 and AES of this browser chosen (what moves data
 * needs), and which ones they are: file-saver workers take the engine's choice instead of
 * timing both again at the start of every backup.
 */
export async function heavyWithCrypto(): Promise<Awaited<ReturnType<typeof heavy>> & { sha256: Sha256Use; aes: 'webcrypto' | 'wasm' }> {
  const h = await heavy();
  const sha256 = await h.chooseSha256();
  const aes = await h.chooseAes();
  return { ...h, sha256, aes };
}

/** This browser profile as restic's host and user (lock files, key files, snapshots by default). */
export async function engineUser(): Promise<Owner> {
  const id = await db.clientId().catch(() => crypto.randomUUID());
  return { hostname: `browser-${id.slice(0, 8)}`, username: 'cairn' };
}

/** Removes the locks this browser's closed tabs left in `s`'s repository. */
export async function removeOwnDeadLocks(s: Session): Promise<void> {
  const o = await engineUser();
  await removeDeadEngineLocks(s.repo, await engineOwner(o.hostname, o.username));
}
