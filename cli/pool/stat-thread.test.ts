import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { StatThread } from './stat-thread';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-stat-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('StatThread', () => {
  it('a thread that dies fails the batches it holds, and the next batch gets a new thread', async () => {
    const script = path.join(dir, 'dies.mjs');
    // Dies on its first batch the first time; a later thread answers.
    writeFileSync(
      script,
      `import { parentPort } from 'node:worker_threads';
       import { existsSync, writeFileSync } from 'node:fs';
       const mark = ${JSON.stringify(path.join(dir, 'died'))};
       parentPort.on('message', (m) => {
         if (!existsSync(mark)) { writeFileSync(mark, ''); process.exit(3); }
         parentPort.postMessage({ id: m.id, batch: { names: m.names } });
       });`,
    );
    const t = new StatThread(pathToFileURL(script));
    await expect(t.lstat(dir, ['a'])).rejects.toThrow('stat thread exited (3)');
    expect(await t.lstat(dir, ['b'])).toEqual({ names: ['b'] });
  });
});
