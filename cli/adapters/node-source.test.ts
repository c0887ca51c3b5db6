import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CairnError } from '../../core/errors';
import type { SourceEntry } from '../../core/archiver/source';
import { nodeEntry, nodeSource } from './node-source';

let dir: string;
const names = ['big.bin', 'dir', 'fifo', 'gone', 'link', 'old.txt', 'small.txt'];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-node-source-'));
  writeFileSync(path.join(dir, 'small.txt'), 'hello');
  writeFileSync(path.join(dir, 'big.bin'), '');
  truncateSync(path.join(dir, 'big.bin'), 5 * 2 ** 32 + 7); // sparse: a size past 32 bits
  writeFileSync(path.join(dir, 'old.txt'), 'x');
  execFileSync('touch', ['-d', '@-86400.250000001', path.join(dir, 'old.txt')]); // before 1970, to the nanosecond
  mkdirSync(path.join(dir, 'dir'));
  symlinkSync('/some/where', path.join(dir, 'link'));
  execFileSync('mkfifo', [path.join(dir, 'fifo')]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The bundled stat thread (npm test builds dist/cli first): worker threads cannot load .ts.
const statWorker = new URL('../../dist/cli-test/stat-worker.mjs', import.meta.url);

describe('nodeSource', () => {
  it('reads a batch of entries on its thread exactly as entryOf reads each, an unreadable name as its error', async () => {
    const src = nodeSource({ statWorker });
    const root = await src.stat(dir);
    const batch = await src.entriesOf!(root, names);
    for (const [i, name] of names.entries()) {
      if (name === 'gone') {
        expect(batch[i]).toBeInstanceOf(CairnError);
        expect((batch[i] as CairnError).code).toBe('SOURCE_READ');
        expect((batch[i] as CairnError).detail['path']).toBe(path.join(dir, 'gone'));
        expect(() => src.entryOf!(root, name)).toThrow(CairnError);
        continue;
      }
      expect(batch[i]).toEqual(src.entryOf!(root, name));
    }
  });

  it('records what lstat says: sizes past 32 bits, times before 1970 to the nanosecond, inode and device, symlink targets', async () => {
    const src = nodeSource({ statWorker });
    const root = await src.stat(dir);
    const [big, old, link, fifo] = (await src.entriesOf!(root, ['big.bin', 'old.txt', 'link', 'fifo'])) as SourceEntry[];
    const st = lstatSync(path.join(dir, 'old.txt'), { bigint: true });
    expect(big!.size).toBe(5 * 2 ** 32 + 7);
    expect(big!.node.size).toBe(5 * 2 ** 32 + 7);
    expect(old!.node.mtime!.toString()).toBe((await nodeEntry(path.join(dir, 'old.txt'))).node.mtime!.toString());
    expect(BigInt(old!.node.mtime!.sec) * 1_000_000_000n + BigInt(old!.node.mtime!.nsec)).toBe(st.mtimeNs);
    expect(st.mtimeNs).toBe(-86_400_250_000_001n);
    expect(old!.node.inode).toBe(st.ino);
    expect(old!.node.deviceId).toBe(st.dev);
    expect(old!.node.uid).toBe(Number(st.uid));
    expect(link!.node.type).toBe('symlink');
    expect(link!.node.linkTarget).toBe('/some/where');
    expect(fifo!.node.type).toBe('fifo');
  });
});
