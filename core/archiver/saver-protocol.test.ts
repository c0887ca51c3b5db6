// The coordinator's side of the saver protocol: which thread a file goes to.
import { describe, expect, it } from 'vitest';
import { threadPool, type SaverThread } from './thread-pool';
import type { ToSaver } from './saver-protocol';
import type { FileSaved } from './file-saver';
import { GARBAGE_PER_NUDGE, garbageSinceNudge, unseenGarbageMade } from '../memory/garbage';

const MiB = 1 << 20;
const tick = () => new Promise<void>((r) => setImmediate(r));
const saved = (size: number): FileSaved => ({ content: [], size, blobsNew: 0, bytesNew: 0, bytesStored: 0, changed: false });

function fakeThreads(n: number): { threads: SaverThread[]; jobsOf: (i: number) => { jobId: number; size: number }[] } {
  const got: { jobId: number; size: number }[][] = Array.from({ length: n }, () => []);
  const threads = got.map((list) => ({
    post(m: ToSaver) {
      if (m.type === 'jobs') list.push(...m.jobs.map((j) => ({ jobId: j.jobId, size: j.job.size })));
    },
    terminate() {},
  }));
  return { threads, jobsOf: (i) => got[i]! };
}

describe('threadPool', () => {
  it('gives a file to the thread with the least work queued, in bytes, not in files', async () => {
    const { threads, jobsOf } = fakeThreads(2);
    const tp = threadPool(threads, { claim: () => true, packSaved: () => {} });
    const done: Promise<FileSaved>[] = [];
    const save = (size: number) => done.push(tp.pool.save({ ref: size, path: `/f${done.length}`, size }));
    save(10 * MiB);
    for (let i = 0; i < 10; i++) save(1024);
    await tick();
    // Ten small files do not add up to one 10 MiB file: all go to the other thread.
    expect(jobsOf(0).map((j) => j.size)).toEqual([10 * MiB]);
    expect(jobsOf(1)).toHaveLength(10);

    // Once most of the big file is read, its thread has the least left to do.
    tp.receive(0, { type: 'bytes', progress: [[jobsOf(0)[0]!.jobId, 10 * MiB - 64 * 1024]] });
    save(5 * MiB);
    await tick();
    expect(jobsOf(0).map((j) => j.size)).toEqual([10 * MiB, 5 * MiB]);

    // Finished jobs leave their thread's queue: the small files' thread is now empty.
    tp.receive(1, { type: 'done', results: jobsOf(1).map((j) => ({ jobId: j.jobId, result: saved(j.size) })) });
    save(MiB);
    await tick();
    expect(jobsOf(1).at(-1)!.size).toBe(MiB);
    tp.receive(0, { type: 'done', results: jobsOf(0).map((j) => ({ jobId: j.jobId, result: saved(j.size) })) });
    tp.receive(1, { type: 'done', results: [{ jobId: jobsOf(1).at(-1)!.jobId, result: saved(MiB) }] });
    expect((await Promise.all(done)).map((r) => r.size)).toEqual([10 * MiB, ...Array(10).fill(1024), 5 * MiB, MiB]);
  });

  it('counts each finished file as garbage, so the coordinator is collected every few thousand files', async () => {
    const { threads, jobsOf } = fakeThreads(1);
    const tp = threadPool(threads, { claim: () => true, packSaved: () => {} });
    const done: Promise<FileSaved>[] = [];
    for (let i = 0; i < 5; i++) done.push(tp.pool.save({ ref: i, path: `/f${i}`, size: 10 }));
    await tick();
    unseenGarbageMade(GARBAGE_PER_NUDGE - garbageSinceNudge()); // a nudge: the count starts at 0
    tp.receive(0, { type: 'done', results: jobsOf(0).map((j) => ({ jobId: j.jobId, result: saved(j.size) })) });
    await Promise.all(done);
    const perFile = garbageSinceNudge() / 5;
    expect(perFile).toBeGreaterThan(0);
    expect(GARBAGE_PER_NUDGE / perFile).toBeGreaterThanOrEqual(1000);
    expect(GARBAGE_PER_NUDGE / perFile).toBeLessThanOrEqual(4000);
  });
});
