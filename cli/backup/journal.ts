// The CLI's pack journal (core/repository/adopt.ts): each pack a backup stores is noted in a
// file of this host's cache before its upload starts — by whichever thread stores it — and the
// file goes once an index lists them all. A backup killed outright (SIGKILL, power cut of the
// process) leaves its file behind; the next backup on this host, under its lock, adopts the
// packs it names (reading their headers, as restic's `repair index` would for just these) so
// their blobs are not uploaded again, then removes the file. restic itself uploads them again
// and leaves the old packs to `prune`. Files are `<cache>/cairn/<repository id>/pending/<host>-<pid>`;
// --no-cache turns the journal off.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adoptPacks, type AdoptResult, type PackJournal } from '../../core/repository/adopt';
import type { Repository } from '../../core/repository/repository';

/** restic's cache directory choice: --cache-dir, $RESTIC_CACHE_DIR, $XDG_CACHE_HOME, ~/.cache. */
export function cacheRoot(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag || env.RESTIC_CACHE_DIR || env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
}

export function journalDir(root: string, repoId: string): string {
  return path.join(root, 'cairn', repoId, 'pending');
}

/** Notes packs in `file`, one ID a line; appended before each upload (O_APPEND: threads share it). */
export function fileJournal(file: string): PackJournal {
  let made = false;
  return {
    async storing(pack) {
      try {
        if (!made) await fs.promises.mkdir(path.dirname(file), { recursive: true });
        made = true;
        await fs.promises.appendFile(file, pack + '\n');
      } catch {
        // a note that cannot be kept only costs an upload later
      }
    },
    indexed: () => {},
  };
}

function packsIn(file: string): string[] {
  try {
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^[0-9a-f]{64}$/.test(l));
  } catch {
    return [];
  }
}

/** Removes this run's journal once every pack it names is indexed (else the next run adopts them). */
export function closeJournal(file: string, repo: Repository): void {
  if (packsIn(file).every((id) => repo.index.hasPack(id))) fs.rmSync(file, { force: true });
}

/**
 * Adopts the packs that backups of this host whose process is gone noted and never indexed,
 * then removes their journals. Needs the index loaded and the repository locked.
 */
export async function adoptLeftovers(repo: Repository, dir: string, host: string, alive: (pid: number) => boolean, signal?: AbortSignal): Promise<AdoptResult> {
  const result: AdoptResult = { adopted: [], skipped: [] };
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return result;
  }
  for (const name of names) {
    const m = /^(.*)-(\d+)$/.exec(name);
    if (!m || m[1] !== host || alive(Number(m[2]))) continue;
    const r = await adoptPacks(repo, packsIn(path.join(dir, name)), signal);
    result.adopted.push(...r.adopted);
    result.skipped.push(...r.skipped);
    fs.rmSync(path.join(dir, name), { force: true });
  }
  return result;
}
