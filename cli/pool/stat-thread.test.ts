import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

  it('holds the process open while a batch is out, and not after it', async () => {
    // The thread answers only after a timer of its own; a process that waits on nothing but
    // its batches must live until each answer (the second batch goes to a thread already
    // let go once) and then exit by itself (no close call).
    const script = path.join(dir, 'slow.mjs');
    writeFileSync(
      script,
      `import { parentPort } from 'node:worker_threads';
       parentPort.on('message', (m) => setTimeout(() => parentPort.postMessage({ id: m.id, batch: { names: m.names } }), 200));`,
    );
    const main = path.join(dir, 'main.mts');
    const source = pathToFileURL(fileURLToPath(new URL('./stat-thread.ts', import.meta.url))).href;
    writeFileSync(
      main,
      `import { StatThread } from ${JSON.stringify(source)};
       const t = new StatThread(new URL(${JSON.stringify(pathToFileURL(script).href)}));
       console.log(JSON.stringify(await t.lstat('/', ['x'])));
       console.log(JSON.stringify(await t.lstat('/', ['y'])));`,
    );
    // A build whose thread kept the process open would be killed here and fail the test.
    const run = await new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) => {
      const c = execFile(process.execPath, ['--import', 'tsx', main], { timeout: 60_000 }, (_e, out) =>
        resolve({ code: c.exitCode, signal: c.signalCode, out }),
      );
    });
    expect(run).toEqual({ code: 0, signal: null, out: '{"names":["x"]}\n{"names":["y"]}\n' });
  }, 90_000);
});
