// A file-saver Web Worker: opens the repository's backend itself, reads each file it is given
// (File or FileSystemFileHandle) in 1 MiB slices, and runs the engine's FileSaver — chunk,
// hash, ask the coordinator to claim new blobs, compress, seal, pack, upload.

/// <reference lib="webworker" />
import { serializeError } from '../../core/errors';
import { Key } from '../../core/crypto/keys';
import { FileSaver } from '../../core/archiver/file-saver';
import { PackerManager } from '../../core/repository/packer-manager';
import { initWasm } from '../wasm';
import { chooseSha256 } from '../sha256-choice';
import { openBackend } from '../location';
import { browserFileReader } from '../source/file-reader';
import type { FromSaver, SaverInit, ToSaver } from './messages';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (m: FromSaver) => scope.postMessage(m);

let saver: FileSaver | undefined;
let packs: PackerManager | undefined;
let nextReq = 0;
const waiting = new Map<number, (r: boolean[]) => void>();
let batch: { id: string; resolve: (b: boolean) => void }[] = [];

// Claims are batched per microtask: one message answers many chunks.
const sendBatch = () => {
  const b = batch;
  batch = [];
  const reqId = nextReq++;
  waiting.set(reqId, (results) => b.forEach((x, i) => x.resolve(results[i]!)));
  post({ type: 'claim', reqId, ids: b.map((x) => x.id) });
};
const claim = (id: string) =>
  new Promise<boolean>((resolve) => {
    if (batch.push({ id, resolve }) === 1) queueMicrotask(sendBatch);
  });

async function start(init: SaverInit): Promise<void> {
  await Promise.all([initWasm(), chooseSha256(init.sha256)]);
  const backend = await openBackend(init.location);
  const key = new Key(init.key.encrypt, init.key.macK, init.key.macR);
  packs = new PackerManager({ key, saver: backend, packSize: init.packSize, uploads: init.uploads, onPackSaved: (pack, size) => post({ type: 'packSaved', pack, size }) });
  saver = new FileSaver({ key, polynomial: init.polynomial, version: init.version, compression: init.compression, packs, reader: browserFileReader, claim });
}

scope.onmessage = (ev: MessageEvent<ToSaver>) => {
  const m = ev.data;
  switch (m.type) {
    case 'init':
      start(m.init).then(
        () => post({ type: 'ready' }),
        (e) => post({ type: 'initError', error: serializeError(e) }),
      );
      break;
    case 'job': {
      // Progress in bytes goes out a few times a second, not once per chunk: each message
      // wakes the coordinator, and per-chunk messages cost more than they tell.
      let pending = 0;
      const flushBytes = () => {
        if (pending > 0) post({ type: 'bytes', jobId: m.jobId, n: pending });
        pending = 0;
      };
      const timer = setInterval(flushBytes, 200);
      const end = () => {
        clearInterval(timer);
        flushBytes();
      };
      saver!.save(m.job, (n) => void (pending += n)).then(
        (result) => (end(), post({ type: 'done', jobId: m.jobId, result })),
        (e) => (end(), post({ type: 'failed', jobId: m.jobId, error: serializeError(e) })),
      );
      break;
    }
    case 'claimed':
      waiting.get(m.reqId)?.(m.results);
      waiting.delete(m.reqId);
      break;
    case 'flush':
      packs!.flush().then(
        () => post({ type: 'flushed', reqId: m.reqId }),
        (e) => post({ type: 'flushed', reqId: m.reqId, error: serializeError(e) }),
      );
      break;
  }
};
