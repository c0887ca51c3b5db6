// A webkitdirectory list served from the page: the engine lists it from paths, sizes and
// times alone, and saver workers get the Files they read over ports of their own, many per
// message. Node 20's MessageChannel and File stand in for the browser's; the app's
// webkitdirectory e2e test (test/e2e/app-webkitdirectory.spec.ts) runs it in Chromium.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectFileServer, fileClient, isServedRef, servedFileList, serveFiles } from './file-server';
import { browserFileReader, useFileServer } from './file-reader';
import { fileListSourceOf } from './file-list-source';
import { CairnError } from '../../core/errors';

const T = Date.UTC(2024, 4, 1);
const file = (name: string, text: string, mtime = T) => new File([text], name, { lastModified: mtime });

describe('served webkitdirectory lists', () => {
  const closers: (() => void)[] = [];
  afterEach(() => {
    closers.splice(0).forEach((c) => c());
    useFileServer(undefined);
    vi.restoreAllMocks();
  });

  it('sends only metadata with the request; the Files stay with the page', async () => {
    const files = [file('a.txt', 'alpha'), file('b.txt', 'bravo!', T + 1000)];
    const served = await servedFileList(files, ['Top/a.txt', 'Top/sub/b.txt']);
    closers.push(served.close, () => served.source.server.close());
    expect(served.source).toMatchObject({ kind: 'served-files', relativePaths: ['Top/a.txt', 'Top/sub/b.txt'], sizes: [5, 6], lastModified: [T, T + 1000] });
    expect(JSON.stringify({ ...served.source, server: undefined })).not.toContain('alpha');

    // The engine's listing from that metadata: each file's ref is its index.
    const src = fileListSourceOf(served.source, (i) => ({ served: i }));
    expect(src.target).toBe('/Top');
    expect(src.files).toBe(2);
    expect(src.bytes).toBe(11);
    const top = await src.stat('/Top');
    const entries = await src.readDir(top, () => {});
    const a = entries.find((e) => e.node.name === 'a.txt')!;
    expect(a.ref).toEqual({ served: 0 });
    expect(isServedRef(a.ref)).toBe(true);
    expect(a.size).toBe(5);
    const sub = await src.readDir(entries.find((e) => e.node.name === 'sub')!, () => {});
    expect(sub.map((e) => [e.node.name, e.size, e.ref])).toEqual([['b.txt', 6, { served: 1 }]]);
    expect(sub[0]!.node.mtime.unixNanos()).toBe(BigInt(T + 1000) * 1_000_000n);
  });

  it('a saver asks for the Files of one task in one message, and reads them through its port', async () => {
    const files = Array.from({ length: 10 }, (_, i) => file(`f${i}`, `content of file ${i}`));
    const page = serveFiles(files);
    closers.push(page.close, () => page.port.close());
    // The engine connects a saver; the saver asks over its own end.
    const saverPort = connectFileServer(page.port);
    closers.push(() => saverPort.close());
    const post = vi.spyOn(saverPort, 'postMessage');
    const client = fileClient(saverPort);
    const get = client.get;
    const got = await Promise.all([3, 7, 0].map(get));
    expect(post).toHaveBeenCalledTimes(1);
    expect(await Promise.all(got.map((f) => f.text()))).toEqual(['content of file 3', 'content of file 7', 'content of file 0']);
    expect(await get(9).then((f) => f.text())).toBe('content of file 9');
    expect(post).toHaveBeenCalledTimes(2);
    // Files of queued jobs are asked for ahead, in one message; their get() then asks nothing.
    client.fetchAhead([1, 2, 8]);
    expect((await Promise.all([client.get(8), client.get(1)].map((p) => p.then((f) => f.text()))))).toEqual(['content of file 8', 'content of file 1']);
    expect(post).toHaveBeenCalledTimes(3);
    expect(await client.get(2).then((f) => f.text())).toBe('content of file 2');
    expect(post).toHaveBeenCalledTimes(3);

    // The saver's reader opens served refs through it.
    useFileServer(get);
    const opened = await browserFileReader.open!({ served: 5 }, 17);
    const buf = new Uint8Array(64);
    const n = await opened.readInto(buf);
    expect(new TextDecoder().decode(buf.subarray(0, n))).toBe('content of file 5');
    await opened.close();
  });

  it('an index the page does not have is a SOURCE_READ error, and without a server a coded one', async () => {
    const page = serveFiles([file('only', 'x')]);
    closers.push(page.close, () => page.port.close());
    const port = connectFileServer(page.port);
    closers.push(() => port.close());
    const { get, fetchAhead } = fileClient(port);
    fetchAhead([5]);
    await expect(get(5)).rejects.toMatchObject({ code: 'SOURCE_READ' });
    const e = await get(4).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CairnError);
    expect((e as CairnError).code).toBe('SOURCE_READ');
    await expect(browserFileReader.open!({ served: 0 }, 1)).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('reports how far it is in reading the sizes and times, a slice at a time', async () => {
    const files = Array.from({ length: 4 }, (_, i) => file(`f${i}`, 'xy'));
    for (const f of files) {
      Object.defineProperty(f, 'size', {
        get() {
          busy(25);
          return 2;
        },
      });
    }
    const seen: [number, number][] = [];
    const served = await servedFileList(files, ['T/a', 'T/b', 'T/c', 'T/d'], undefined, (done, total) => seen.push([done, total]));
    closers.push(served.close, () => served.source.server.close());
    expect(served.source.sizes).toEqual([2, 2, 2, 2]);
    // A report after each slice of ~40 ms (25 ms a file here), and one at the end.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toEqual([4, 4]);
    expect(seen.every(([done, total], i) => total === 4 && done >= 1 && (i === 0 || done >= seen[i - 1]![0]))).toBe(true);
    expect(seen[0]![0]).toBeLessThan(4);
  });

  it('reading the sizes and times can be cancelled', async () => {
    const files = Array.from({ length: 3 }, (_, i) => file(`f${i}`, 'x'));
    const ac = new AbortController();
    // Each size takes 30 ms here, so the first slice ends after two files and the abort is seen.
    for (const f of files) {
      const size = f.size;
      Object.defineProperty(f, 'size', {
        get() {
          busy(30);
          return size;
        },
      });
    }
    ac.abort();
    await expect(servedFileList(files, ['T/a', 'T/b', 'T/c'], ac.signal)).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}
