// Two cairn and two restic processes back up the same files into one repository at the same
// moment — a local folder, then a radosgw bucket. All four finish, every snapshot restores
// byte-identical, `restic check --read-data` is clean, and the data is deduplicated wherever
// a writer could know of it: backups that start together cannot see each other's blobs (no
// index lists them yet), so each may store its own copy — at most one per writer, which is what
// this allows (measured: 2× to 4× the distinct blobs, depending on how the four overlapped) —
// while every backup after them adds no data at all.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CAIRN_BIN, TEST_ENV, cairn, diffTrees, jsonMessage, ok, removeDir, restic, tempDir, type RunResult } from '../helpers/cli';
import { startS3, type S3Server } from '../helpers/s3-server';

const MiB = 1 << 20;

/** Starts `cmd` now; resolves with its result. */
function start(cmd: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { env: { ...process.env, ...TEST_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '',
      stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

interface Blobs {
  /** Data blob entries in the index, duplicates counted. */
  entries: number;
  unique: number;
}

async function dataBlobs(repo: string, env: Record<string, string>): Promise<Blobs> {
  const lines = (await ok(restic(['--no-cache', '-r', repo, 'list', 'blobs'], { env }))).stdout.split('\n').filter((l) => l.startsWith('data '));
  return { entries: lines.length, unique: new Set(lines).size };
}

describe('four writers at once (two cairn, two restic)', () => {
  let dir: string, src: string, s3: S3Server | undefined;

  beforeAll(async () => {
    dir = await tempDir('concurrency');
    src = join(dir, 'src');
    await mkdir(join(src, 'sub'), { recursive: true });
    const c = createCipheriv('aes-256-ctr', Buffer.alloc(32, 11), Buffer.alloc(16));
    for (let i = 0; i < 4; i++) await writeFile(join(src, `f${i}.bin`), c.update(Buffer.alloc(2 * MiB)));
    for (let i = 0; i < 20; i++) await writeFile(join(src, 'sub', `small${i}.txt`), `small file ${i}\n`.repeat(50 + i));
    s3 = await startS3();
  }, 180_000);
  afterAll(async () => {
    await removeDir(dir);
    await s3?.stop();
  });

  const backends = (): [string, () => { repo: string; env: Record<string, string> }][] => [
    ['a local folder', () => ({ repo: join(dir, 'local'), env: {} })],
    [
      'a radosgw bucket',
      () => ({
        repo: `s3:${s3!.endpoint}/${s3!.bucket}/concurrency-${Date.now()}`,
        env: { AWS_ACCESS_KEY_ID: s3!.accessKeyId, AWS_SECRET_ACCESS_KEY: s3!.secretAccessKey, AWS_DEFAULT_REGION: s3!.region },
      }),
    ],
  ];

  it.each(backends())(
    '%s',
    async (name, where) => {
      const { repo, env } = where();
      await ok(cairn(['-r', repo, 'init'], { env }));
      // restic chunks with the repository's polynomial, so all four cut the files alike.
      const runs = await Promise.all([
        start(process.execPath, [CAIRN_BIN, '-r', repo, 'backup', '--json', '--host', 'cairn-1', src], env),
        start(process.execPath, [CAIRN_BIN, '-r', repo, 'backup', '--json', '--host', 'cairn-2', src], env),
        start('restic', ['--no-cache', '-r', repo, 'backup', '--json', '--host', 'restic-1', src], env),
        start('restic', ['--no-cache', '-r', repo, 'backup', '--json', '--host', 'restic-2', src], env),
      ]);
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const list = JSON.parse((await ok(restic(['--no-cache', '-r', repo, 'snapshots', '--json'], { env }))).stdout) as { id: string; hostname: string }[];
      expect(list.map((s) => s.hostname).sort()).toEqual(['cairn-1', 'cairn-2', 'restic-1', 'restic-2']);
      const check = await restic(['--no-cache', '-r', repo, 'check', '--read-data'], { env });
      expect(check.stdout, check.stderr).toContain('no errors were found');
      expect(check.code).toBe(0);
      // restic's check read every snapshot's trees and blobs; one snapshot of each tool restores byte-identical.
      for (const s of list.filter((x) => x.hostname.endsWith('-1'))) {
        const target = join(dir, `restore-${name.length}-${s.hostname}`);
        await ok(cairn(['-r', repo, 'restore', s.id, '--target', target], { env }));
        expect(await diffTrees(src, join(target, src))).toEqual([]);
      }
      const blobs = await dataBlobs(repo, env);
      // 4 files of 2 MiB random (1 to 4 chunks each) and 20 small files: every distinct blob is there...
      expect(blobs.unique).toBeGreaterThanOrEqual(24);
      // ...at most once per writer (no writer stores a blob twice), and not more.
      expect(blobs.entries).toBeLessThanOrEqual(4 * blobs.unique);
      // Once the four are indexed, the next backups by either tool add no data.
      const again = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', '--force', '--host', 'cairn-3', src], { env }))).stdout, 'summary');
      expect(again.data_blobs).toBe(0);
      const againRestic = jsonMessage(
        (await ok(restic(['--no-cache', '-r', repo, 'backup', '--json', '--force', '--host', 'restic-3', src], { env }))).stdout,
        'summary',
      );
      expect(againRestic.data_blobs).toBe(0);
      expect((await dataBlobs(repo, env)).entries).toBe(blobs.entries);
    },
    180_000,
  );
});
