// The saver thread's side of the saver protocol: how many files run at once, and what goes back.
import { describe, expect, it } from 'vitest';
import { saverEndpoint } from './saver-endpoint';
import type { FileJob, FileSaved, FileSaver } from './file-saver';
import type { FromSaver } from './saver-protocol';
import type { PackerManager } from '../repository/packer-manager';

const tick = () => new Promise<void>((r) => setImmediate(r));
const MiB = 1 << 20;

/** A FileSaver whose saves finish when released; it claims each file's one blob first. */
function fakeSaver() {
  const running = new Map<string, () => void>();
  const claimed: boolean[] = [];
  const make = (claim: (id: string) => Promise<boolean>) =>
    ({
      async save(job: FileJob, onBytes?: (n: number) => void): Promise<FileSaved> {
        claimed.push(await claim('id-' + job.path));
        await new Promise<void>((r) => running.set(job.path, r));
        onBytes?.(job.size);
        return { content: ['id-' + job.path], size: job.size, blobsNew: 1, bytesNew: job.size, bytesStored: job.size, changed: false };
      },
    }) as unknown as FileSaver;
  return { make, running, claimed };
}

describe('saverEndpoint', () => {
  it('runs `parallel` large files and many small ones at once; claims and results go out in batches', async () => {
    const sent: FromSaver[] = [];
    const f = fakeSaver();
    const handle = saverEndpoint({
      post: (m) => sent.push(m),
      packs: {} as PackerManager,
      parallel: 1,
      smallParallel: 2,
      makeSaver: f.make,
      later: (fn) => setImmediate(fn),
    });
    const job = (path: string, size: number) => ({ jobId: Number(path.slice(1)), job: { ref: path, path, size } });
    handle({ type: 'jobs', jobs: [job('/1', 4 * MiB), job('/2', 4 * MiB), job('/3', 10), job('/4', 10), job('/5', 10)] });
    await tick();
    const claims = sent.filter((m) => m.type === 'claim');
    expect(claims).toEqual([{ type: 'claim', reqId: 0, ids: ['id-/1', 'id-/3', 'id-/4'] }]); // one large, two small
    handle({ type: 'claimed', reqId: 0, results: [true, false, true] });
    await tick();
    expect([...f.running.keys()]).toEqual(['/1', '/3', '/4']);
    f.running.get('/3')!();
    f.running.get('/1')!();
    await tick();
    await tick();
    const done = sent.filter((m) => m.type === 'done');
    expect(done).toHaveLength(1);
    expect(done[0]!.type === 'done' && done[0]!.results.map((r) => r.jobId).sort()).toEqual([1, 3]);
    // Their places went to the next large and small file.
    const later = sent.filter((m) => m.type === 'claim').slice(1);
    expect(later.flatMap((m) => (m.type === 'claim' ? m.ids : [])).sort()).toEqual(['id-/2', 'id-/5']);
  });

  it('answers a flush once the packs are stored, with the error if storing failed', async () => {
    const sent: FromSaver[] = [];
    let fail = false;
    const packs = { flush: async () => (fail ? Promise.reject(new Error('bucket gone')) : undefined) } as unknown as PackerManager;
    const handle = saverEndpoint({ post: (m) => sent.push(m), packs, parallel: 1, makeSaver: fakeSaver().make });
    handle({ type: 'flush', reqId: 7 });
    fail = true;
    handle({ type: 'flush', reqId: 8 });
    await tick();
    expect(sent).toEqual([
      { type: 'flushed', reqId: 7 },
      { type: 'flushed', reqId: 8, error: expect.objectContaining({ message: 'bucket gone' }) },
    ]);
  });
});
