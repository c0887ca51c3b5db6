// A webkitdirectory list served from the page: the engine lists it from paths alone, with
// sizes and times that the page reads and sends while the backup runs, and saver workers get the Files they read over ports of their own, many per
// message. Node 20's MessageChannel and File stand in for the browser's; the app's
// webkitdirectory e2e test (test/e2e/app-webkitdirectory.spec.ts) runs it in Chromium.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectFileServer, fileClient, isServedRef, requestMetadata } from './file-server';
import { servedFileList, serveFiles } from '../client/file-server';
import { browserFileReader, useFileServer } from './file-reader';
import { fileListSourceOf } from './file-list-source';
import { CairnError } from '../../core/errors';
import { excludeMatcher } from '../engine/excludes';

const T = Date.UTC(2024, 4, 1);
const file = (name: string, text: string, mtime = T) => new File([text], name, { lastModified: mtime });

describe('served webkitdirectory lists', () => {
  const closers: (() => void)[] = [];
  afterEach(() => {
    closers.splice(0).forEach((c) => c());
    useFileServer(undefined);
    vi.restoreAllMocks();
  });

  it('sends only paths with the request; sizes and times follow in the order the engine walks', async () => {
    const files = [file('b.txt', 'bravo!', T + 1000), file('a.txt', 'alpha'), file('c.txt', 'charlie', T + 2000)];
    const read: string[] = [];
    for (const f of files) spyOnSize(f, () => read.push(f.name));
    const served = servedFileList(files, ['Top/sub/b.txt', 'Top/a.txt', 'Top/sub/c.txt']);
    closers.push(served.close, () => served.source.server.close());
    expect(served.source).toEqual({ kind: 'served-files', relativePaths: ['Top/sub/b.txt', 'Top/a.txt', 'Top/sub/c.txt'], server: served.source.server });
    expect(read).toEqual([]); // nothing read until the engine asks

    // The engine's listing from the paths: each file's ref is its index; sizes and times come
    // from the page, the top folder's files first.
    const src = fileListSourceOf(served.source.relativePaths, requestMetadata(served.source.server, 3), (i) => ({ served: i }));
    expect(src.target).toBe('/Top');
    expect(src.files).toBe(3);
    const top = await src.stat('/Top');
    const entries = await src.readDir(top, () => {});
    expect(read[0]).toBe('a.txt');
    const a = entries.find((e) => e.node.name === 'a.txt')!;
    expect(a.ref).toEqual({ served: 1 });
    expect(isServedRef(a.ref)).toBe(true);
    expect(a.size).toBe(5);
    const sub = await src.readDir(
      entries.find((e) => e.node.name === 'sub')!,
      () => {},
    );
    expect(sub.map((e) => [e.node.name, e.size, e.ref])).toEqual([
      ['b.txt', 6, { served: 0 }],
      ['c.txt', 7, { served: 2 }],
    ]);
    expect(sub[0]!.node.mtime.unixNanos()).toBe(BigInt(T + 1000) * 1_000_000n);
    expect((await src.stat('/Top/sub/c.txt')).size).toBe(7);
    expect(read).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(JSON.stringify({ ...served.source, server: undefined })).not.toContain('alpha');
  });

  it('a folder lists as soon as its files are known, while the page reads on', async () => {
    // 25 ms a size: the page posts a slice after ~40 ms of reading, two files here.
    const files = Array.from({ length: 6 }, (_, i) => file(`f${i}`, 'xy'));
    let sizesRead = 0;
    for (const f of files) spyOnSize(f, () => (busy(25), sizesRead++));
    const seen: [number, number][] = [];
    const served = servedFileList(files, ['T/f0', 'T/d/f1', 'T/d/f2', 'T/d/f3', 'T/d/f4', 'T/d/f5'], undefined, (done, total) => seen.push([done, total]));
    closers.push(served.close, () => served.source.server.close());
    const src = fileListSourceOf(served.source.relativePaths, requestMetadata(served.source.server, 6), (i) => ({ served: i }));
    const top = await src.readDir(await src.stat('/T'), () => {});
    expect(top.map((e) => e.node.name)).toEqual(['f0', 'd']);
    expect(sizesRead).toBeLessThan(6);
    const d = await src.readDir(top[1]!, () => {});
    expect(d.map((e) => e.size)).toEqual([2, 2, 2, 2, 2]);
    expect(sizesRead).toBe(6);
    // A report after each slice, the last one complete.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toEqual([6, 6]);
    expect(seen.every(([done, total], i) => total === 6 && done >= 1 && (i === 0 || done > seen[i - 1]![0]))).toBe(true);
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
    expect(await Promise.all([client.get(8), client.get(1)].map((p) => p.then((f) => f.text())))).toEqual(['content of file 8', 'content of file 1']);
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

  it('the list is used up: its Files leave the caller, and each is dropped by the page once served', async () => {
    const files = Array.from({ length: 4 }, (_, i) => file(`f${i}`, `content ${i}`));
    const paths = files.map((f) => `T/${f.name}`);
    const served = servedFileList(files, paths);
    closers.push(served.close, () => served.source.server.close());
    expect(files).toEqual([]); // taken over: the caller keeps no File alive
    const port = connectFileServer(served.source.server);
    closers.push(() => port.close());
    const { get } = fileClient(port);
    expect(await Promise.all([get(2), get(0)].map((p) => p.then((f) => f.text())))).toEqual(['content 2', 'content 0']);
    // Served once: the page holds it no more (a second ask finds nothing), the others it does.
    await expect(get(2)).rejects.toMatchObject({ code: 'SOURCE_READ' });
    expect(await get(3).then((f) => f.text())).toBe('content 3');
    // The emptied list cannot serve another backup.
    expect(() => servedFileList(files, paths)).toThrow(expect.objectContaining({ code: 'USAGE' }));
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

  it('the page stops reading sizes and times when cancelled, and the engine says so', async () => {
    const files = Array.from({ length: 3 }, (_, i) => file(`f${i}`, 'x'));
    const ac = new AbortController();
    ac.abort();
    const served = servedFileList(files, ['T/a', 'T/b', 'T/c'], ac.signal);
    closers.push(served.close, () => served.source.server.close());
    const src = fileListSourceOf(served.source.relativePaths, requestMetadata(served.source.server, 3), (i) => ({ served: i }));
    await expect(src.readDir(await src.stat('/T'), () => {})).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('the page never reads the sizes of excluded files; a folder whose files are all excluded stays, empty', async () => {
    const files = [file('a', 'x'), file('b', 'y'), file('c.tmp', 'z'), file('d', 'w'), file('e', 'v')];
    const read: string[] = [];
    for (const f of files) spyOnSize(f, () => read.push(f.name));
    const paths = ['T/a', 'T/node_modules/b', 'T/logs/c.tmp', 'T/d', 'T/node_modules/deep/e'];
    let allServed!: () => void;
    const servedAll = new Promise<void>((resolve) => (allServed = resolve));
    const served = servedFileList(files, paths, undefined, (done, total) => done === total && allServed());
    closers.push(served.close, () => served.source.server.close());
    const src = fileListSourceOf(paths, requestMetadata(served.source.server, 5), (i) => ({ served: i }), excludeMatcher(['node_modules', '*.tmp']));
    expect(src.files).toBe(2);
    const top = await src.readDir(await src.stat('/T'), () => {});
    expect(top.map((e) => e.node.name)).toEqual(['a', 'logs', 'd']);
    expect(await src.readDir(top[1]!, () => {})).toEqual([]);
    await servedAll; // the page has answered everything the engine asked for
    expect(read.sort()).toEqual(['a', 'd']);
  });

  it('a size the page cannot read fails the listing with a coded error instead of leaving it waiting', async () => {
    const files = [file('a', 'x'), file('b', 'y')];
    Object.defineProperty(files[1]!, 'size', {
      get() {
        throw new Error('gone');
      },
    });
    const served = servedFileList(files, ['T/a', 'T/b']);
    closers.push(served.close, () => served.source.server.close());
    const src = fileListSourceOf(served.source.relativePaths, requestMetadata(served.source.server, 2), (i) => ({ served: i }));
    await expect(src.readDir(await src.stat('/T'), () => {})).rejects.toMatchObject({ code: 'SOURCE_READ', message: expect.stringContaining('gone') });
  });

  it("the engine's own cancel ends a wait for sizes and times", async () => {
    const page = new MessageChannel(); // a page that never answers
    closers.push(() => page.port1.close());
    const ac = new AbortController();
    const src = fileListSourceOf(['T/a'], requestMetadata(page.port2, 1), (i) => ({ served: i }));
    const listed = src.readDir(await src.stat('/T'), () => {}, ac.signal);
    ac.abort();
    await expect(listed).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

function spyOnSize(f: File, onRead: () => void): void {
  const size = f.size;
  Object.defineProperty(f, 'size', {
    get() {
      onRead();
      return size;
    },
  });
}

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}
