// A worker thread that saves files: it opens the backend itself, reads each file by path,
// and runs the engine's FileSaver; the coordinator only answers claims.

import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../../core/errors';
import { Key } from '../../core/crypto/keys';
import { FileSaver } from '../../core/archiver/file-saver';
import { PackerManager } from '../../core/repository/packer-manager';
import { installNodePrimitives } from '../adapters/node-primitives';
import { initZstdNode } from '../adapters/zstd-node';
import { nodeFileReader } from '../adapters/node-source';
import { openBackend } from '../location';
import type { FromWorker, ToWorker, WorkerInit } from './messages';

const port = parentPort!;
const post = (m: FromWorker) => port.postMessage(m);

async function main(init: WorkerInit): Promise<void> {
  installNodePrimitives();
  await initZstdNode();
  const backend = await openBackend(init.backend);
  const key = new Key(init.key.encrypt, init.key.macK, init.key.macR);
  const packs = new PackerManager({
    key,
    saver: backend,
    packSize: init.packSize,
    uploads: init.uploads,
    onPackSaved: (pack, size) => post({ type: 'packSaved', pack, size }),
  });

  let nextReq = 0;
  const waiting = new Map<number, ((r: boolean[]) => void)>();
  let batch: { id: string; resolve: (b: boolean) => void }[] = [];
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

  const saver = new FileSaver({ key, polynomial: init.polynomial, version: init.version, compression: init.compression, packs, reader: nodeFileReader, claim });

  // Progress bytes go out at most every 200 ms per job (a message per chunk costs more than
  // the chunk's hashing for small files).
  const unsent = new Map<number, number>();
  const flushBytes = (jobId: number) => {
    const n = unsent.get(jobId);
    unsent.delete(jobId);
    if (n) post({ type: 'bytes', jobId, n });
  };
  const addBytes = (jobId: number, n: number) => {
    if (unsent.size === 0) setTimeout(() => [...unsent.keys()].forEach(flushBytes), 200);
    unsent.set(jobId, (unsent.get(jobId) ?? 0) + n);
  };
  const abort = new AbortController();
  port.on('message', (m: ToWorker) => {
    switch (m.type) {
      case 'job':
        saver.save(m.job, (n) => addBytes(m.jobId, n), abort.signal).then(
          (result) => {
            flushBytes(m.jobId);
            post({ type: 'done', jobId: m.jobId, result });
          },
          (e) => {
            flushBytes(m.jobId);
            post({ type: 'failed', jobId: m.jobId, error: serializeError(e) });
          },
        );
        break;
      case 'claimed':
        waiting.get(m.reqId)?.(m.results);
        waiting.delete(m.reqId);
        break;
      case 'flush':
        packs.flush().then(
          () => post({ type: 'flushed', reqId: m.reqId }),
          (e) => post({ type: 'flushed', reqId: m.reqId, error: serializeError(e) }),
        );
        break;
      case 'abort':
        abort.abort();
        break;
      case 'close':
        void backend.close().finally(() => process.exit(0));
        break;
    }
  });
  post({ type: 'ready' });
}

main(workerData as WorkerInit).catch((e) => post({ type: 'initError', error: serializeError(e) }));
