// A restore killed outright (SIGKILL) at any moment is finished by running it again: the result
// is byte for byte what restic 0.14 restores, and the files the killed run had completed are
// not written again (restic 0.18's --overwrite always: an existing file is read, and one whose
// blobs are all intact is left as it is; a partial one keeps its intact blobs).
// Twenty kill points from a fixed seed, spread over one restore by the bytes it has written.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CAIRN_BIN, TEST_ENV, cairn, describeTree, diffTrees, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';

const KILLS = 20;

function random(seed: number, n: number): Buffer {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n));
}

/** mulberry32: a small seeded generator. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Bytes allocated below `root` (a file sized up front counts only what was written into it). */
async function allocated(root: string): Promise<number> {
  let n = 0;
  const visit = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await visit(join(d, e.name));
      else if (e.isFile()) n += ((await lstat(join(d, e.name)).catch(() => undefined))?.blocks ?? 0) * 512;
    }
  };
  await visit(root);
  return n;
}

/**
 * Runs a restore; with `killAt`, SIGKILLs it once that many bytes are in the target. Kill points
 * go by progress, not time (the machine's load does not move them): the process runs in steps
 * of a few milliseconds, stopped (SIGSTOP) while the target is measured. Returns how it ended.
 */
async function restoreUntil(repo: string, snap: string, target: string, killAt?: number): Promise<{ killed: boolean }> {
  const p = spawn(process.execPath, [CAIRN_BIN, '-r', repo, 'restore', snap, '--target', target], { env: { ...process.env, ...TEST_ENV }, stdio: 'ignore' });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => p.on('exit', (code, signal) => res({ code, signal })));
  let done = false;
  void exited.then(() => (done = true));
  while (killAt !== undefined && !done) {
    await new Promise((r) => setTimeout(r, 4));
    if (done) break;
    p.kill('SIGSTOP');
    const reached = (await allocated(target)) >= killAt;
    p.kill(reached ? 'SIGKILL' : 'SIGCONT');
    if (reached) break;
  }
  const { code, signal } = await exited;
  if (code !== 0 && signal !== 'SIGKILL') throw new Error(`restore exited ${code}`);
  return { killed: signal === 'SIGKILL' };
}

describe('a restore killed with SIGKILL', () => {
  let dir: string, src: string, repo: string, snap: string, reference: string;
  let want: Awaited<ReturnType<typeof describeTree>>;

  beforeAll(async () => {
    dir = await tempDir('restore-kill');
    src = join(dir, 'src');
    repo = join(dir, 'repo');
    await mkdir(join(src, 'many'), { recursive: true });
    // Small files in many 4 MiB packs, a few multi-blob files, one sized up front (> 8 MiB).
    for (let i = 0; i < 200; i++) await writeFile(join(src, 'many', `f${i}.bin`), random(i + 1, 12_000 + i * 37));
    for (let i = 0; i < 2; i++) await writeFile(join(src, `big${i}.bin`), random(100 + i, 3 << 19));
    await writeFile(join(src, 'huge.bin'), random(200, 9 << 20));
    await writeFile(join(src, 'notes.txt'), 'notes\n'.repeat(5000));
    await ok(cairn(['-r', repo, 'init']));
    snap = jsonMessage((await ok(cairn(['-r', repo, '--pack-size', '4', 'backup', '--json', src]))).stdout, 'summary').snapshot_id as string;
    reference = join(dir, 'reference');
    await ok(restic(['-r', repo, 'restore', snap, '--target', reference]));
    want = await describeTree(join(reference, src));
  }, 60_000);
  afterAll(() => removeDir(dir));

  it('is finished by running it again: identical to restic, completed files not written again', async () => {
    const total = [...want.values()].reduce((n, e) => n + e.size, 0);
    const random01 = seeded(37);
    let interrupted = 0;
    for (let k = 0; k < KILLS; k++) {
      const target = join(dir, `t${k}`);
      // One point in each twentieth of the restore's bytes.
      const at = Math.floor(((k + random01()) / KILLS) * total);
      const run = await restoreUntil(repo, snap, target, at);
      if (run.killed) interrupted++;

      // What the killed run left complete (right content), with its inode.
      const left = await describeTree(join(target, src)).catch(() => new Map<string, never>());
      const complete = new Map<string, bigint>();
      for (const [p, e] of left)
        if (e.type === 'file' && e.content === want.get(p)?.content) complete.set(p, (await lstat(join(target, src, p), { bigint: true })).ino);

      const again = await cairn(['-r', repo, 'restore', snap, '--target', target, '--json', '-v']);
      expect(again.code, `kill ${k} at byte ${at}: ${again.stderr}`).toBe(0);
      expect(await describeTree(join(target, src)), `kill ${k} at byte ${at}`).toEqual(want);
      const actions = new Map<string, string>();
      for (const line of again.stdout.split('\n')) {
        const m = line ? (JSON.parse(line) as { message_type: string; action?: string; item?: string }) : undefined;
        if (m?.message_type === 'verbose_status') actions.set(m.item!.slice(src.length + 1), m.action!);
      }
      for (const [p, ino] of complete) {
        expect(actions.get(p), `kill ${k}: ${p} was complete`).toBe('unchanged');
        expect((await lstat(join(target, src, p), { bigint: true })).ino, `kill ${k}: ${p} replaced`).toBe(ino);
      }
      // Modification times are the snapshot's again (the killed run may not have set them), within
      // 2 µs: Node sets times as a double of seconds cut to microseconds, restic to the nanosecond.
      for (const p of ['notes.txt', 'huge.bin', 'many/f7.bin']) {
        const got = (await lstat(join(target, src, p), { bigint: true })).mtimeNs;
        const ref = (await lstat(join(reference, src, p), { bigint: true })).mtimeNs;
        expect(got > ref ? got - ref : ref - got, p).toBeLessThan(2000n);
      }
      await removeDir(target);
    }
    // The points fell while the restore ran, not after it.
    expect(interrupted).toBeGreaterThanOrEqual(KILLS - 2);
  }, 240_000);

  it('a partial file keeps its intact blobs: only the rest is written again', async () => {
    const target = join(dir, 'partial');
    await ok(cairn(['-r', repo, 'restore', snap, '--target', target]));
    // Damage the middle of huge.bin (as a killed run leaves it: holes of zeros) and its mtime.
    const file = join(target, src, 'huge.bin');
    const bytes = await readFile(file);
    bytes.fill(0, 3 << 20, 5 << 20);
    await writeFile(file, bytes);
    const ino = (await lstat(file, { bigint: true })).ino;
    const r = jsonMessage((await ok(cairn(['-r', repo, 'restore', snap, '--target', target, '--json']))).stdout, 'summary');
    expect(await diffTrees(join(reference, src), join(target, src))).toEqual([]);
    expect((await lstat(file, { bigint: true })).ino).toBe(ino);
    // Every other file is unchanged; huge.bin is updated in place (which blobs are written again: core/restorer/restorer-overwrite.test.ts).
    expect(r.files_skipped).toBe(want.size - [...want.values()].filter((e) => e.type === 'dir').length - 1);
  });
});
