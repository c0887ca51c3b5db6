// A worker thread that saves files: it opens the backend itself, reads each file by path,
// and runs the engine's FileSaver; the coordinator only answers claims. Jobs arrive in
// batches and wait in a queue; `parallel` of them are saved at once (while one waits for a
// read or a claim, another computes). Results, claims and progress leave in batches, one
// message per turn of the event loop.

import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../../core/errors';
import { Key } from '../../core/crypto/keys';
import { FileSaver, type FileJob } from '../../core/archiver/file-saver';
import { PackerManager } from '../../core/repository/packer-manager';
import { installNodePrimitives } from '../adapters/node-primitives';
import { initZstdNode } from '../adapters/zstd-node';
import { nodeFileReader } from '../adapters/node-source';
import { openBackend } from '../location';
import type { FromWorker, JobResult, ToWorker, WorkerInit } from './messages';

const port = parentPort!;
const post = (m: FromWorker) => port.postMessage(m);

/** Collects items and sends them as one message at the end of the current turn. */
function batcher<T>(send: (items: T[]) => void, later: (f: () => void) => void = queueMicrotask): (item: T) => void {
  let items: T[] = [];
  return (item) => {
    if (items.push(item) === 1) {
      later(() => {
        const out = items;
        items = [];
        send(out);
      });
    }
  };
}

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
  const waiting = new Map<number, (r: boolean[]) => void>();
  const claim = (() => {
    const ask = batcher<{ id: string; resolve: (b: boolean) => void }>((b) => {
      const reqId = nextReq++;
      waiting.set(reqId, (results) => b.forEach((x, i) => x.resolve(results[i]!)));
      post({ type: 'claim', reqId, ids: b.map((x) => x.id) });
    });
    return (id: string) => new Promise<boolean>((resolve) => ask({ id, resolve }));
  })();

  const saver = new FileSaver({ key, polynomial: init.polynomial, version: init.version, compression: init.compression, packs, reader: nodeFileReader, claim });

  // Results go out once per turn (setImmediate lets a burst of small files finish first).
  const finished = batcher<JobResult>((results) => post({ type: 'done', results }), (f) => void setImmediate(f));
  // Progress of long files, at most every 200 ms; what a finished file read is in its result.
  const unsent = new Map<number, number>();
  let progressTimer: ReturnType<typeof setTimeout> | undefined;
  const addBytes = (jobId: number, n: number) => {
    unsent.set(jobId, (unsent.get(jobId) ?? 0) + n);
    progressTimer ??= setTimeout(() => {
      progressTimer = undefined;
      if (unsent.size) post({ type: 'bytes', progress: [...unsent] });
      unsent.clear();
    }, 200);
  };

  const abort = new AbortController();
  const queue: { jobId: number; job: FileJob }[] = [];
  let running = 0;
  const pump = () => {
    while (running < init.parallel && queue.length) {
      const { jobId, job } = queue.shift()!;
      running++;
      saver.save(job, (n) => addBytes(jobId, n), abort.signal).then(
        (result) => {
          unsent.delete(jobId);
          finished({ jobId, result });
        },
        (e) => {
          unsent.delete(jobId);
          finished({ jobId, error: serializeError(e) });
        },
      ).finally(() => {
        running--;
        pump();
      });
    }
  };

  port.on('message', (m: ToWorker) => {
    switch (m.type) {
      case 'jobs':
        queue.push(...m.jobs);
        pump();
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
